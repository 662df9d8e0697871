/**
 * Patient search (spec 2.4, 4.3). A query is tried as what it can be:
 * - an email (it has an `@`): equal address, any letter case;
 * - a phone (no letters, at least 6 digits): equal canonical E.164 number, any input format;
 * - a tax code (letters and digits, 11-16 characters once spaces are dropped): equal, any case;
 * - a name (it has letters and no `@`), with an optional birth year ("rossi 1975"):
 *   candidates come from the clinic's name vocabulary (name-candidates.ts), each is scored by
 *   `nameScore` (optimal-string-alignment edit distance on the whole name in both orders and
 *   token by token) blended 9:1 with the trigram similarity. Exact matches of email, phone
 *   and tax code score 1.
 * `closeMatches` counts the candidates whose score equals the best one (3 decimals).
 * Nicknames: nicknames.ts; second details that confirm a patient: confirm.ts.
 * README.md in this folder explains the design and where the time goes.
 */
import type { Actor } from '../../core/actor.js';
import type { Db } from '../../db/transaction.js';
import { ApiError } from '../../core/errors.js';
import { toCanonicalPhone } from '../../lib/phone.js';
import type { PatientSearchQuery, PatientSearchResult as SearchResult, SearchHit } from './schema.js';
import { normalizeName, normalizeTaxCode } from './normalize.js';
import { confirmation, detailsAsked, detailsToAsk, matchDetails, type DetailMatch } from './confirm.js';
import { nicknameVariants, nicknameWeights } from './nicknames.js';
import { nameCandidates, round, type Candidate } from './name-candidates.js';
import { facilityOfClinic } from '../facilities/index.js';
import { hitDetails, patientsWith, type SearchScope } from './search-store.js';

/** A name query of more words than this is nobody's name: it is answered with no hit, at once. */
const MAX_NAME_WORDS = 8;
/** A four-digit token read as a birth year ("rossi 1975"). */
const BIRTH_YEAR = /^(19|20)\d\d$/;

/**
 * A name query, read from the normalized text: its words (tokens with a letter) and, when
 * one token is a year between 1900 and 2099, the birth year asked for. Other number tokens
 * are dropped: no name holds them.
 */
function parseNameQuery(normalized: string): { words: string[]; birthYear: number | null } {
  const tokens = normalized.split(' ').filter(Boolean);
  const year = tokens.find((t) => BIRTH_YEAR.test(t));
  return { words: tokens.filter((t) => /\p{L}/u.test(t)), birthYear: year ? Number(year) : null };
}

/**
 * Takes only the parts of the actor it reads, so the benchmark can search without a request.
 * An agent key (`agent` not `none`) gets only a confirmed patient (see the end).
 */
export async function searchPatients(
  db: Db,
  actor: Pick<Actor, 'clinicId' | 'facilityIds' | 'region'> & Partial<Pick<Actor, 'agent'>>,
  params: PatientSearchQuery,
): Promise<SearchResult> {
  const query = params.q.trim();
  if (params.facilityId) {
    const facilityId = params.facilityId.toLowerCase();
    const seen = actor.facilityIds === null || actor.facilityIds.includes(facilityId);
    const exists = seen && (await facilityOfClinic(db, actor.clinicId, facilityId));
    if (!exists) throw ApiError.invalid('query', [{ path: 'facilityId', message: 'sede inesistente o non accessibile con questa chiave' }]);
  }
  const facilityId = params.facilityId?.toLowerCase() ?? null;

  // Plain reads, no transaction: each statement stands alone.
  const { words, birthYear } = parseNameQuery(normalizeName(query));
  const scope: SearchScope = { clinicId: actor.clinicId, facilityIds: actor.facilityIds, facilityId };
  const found = new Map<string, Candidate>();
  const add = (c: Candidate) => {
    const prev = found.get(c.id);
    if (!prev || prev.score < c.score) found.set(c.id, c);
  };

  const hasLetters = /\p{L}/u.test(query);
  const digits = query.replace(/\D/g, '');
  if (query.includes('@')) {
    const rows = await patientsWith(db, scope, 'email', query.toLowerCase());
    for (const r of rows) add({ id: r.id, score: 1, matchedBy: 'email', active: r.is_active });
  }
  if (!hasLetters && digits.length >= 6) {
    const phone = toCanonicalPhone(query, actor.region);
    if (phone) {
      const rows = await patientsWith(db, scope, 'phone', phone);
      for (const r of rows) add({ id: r.id, score: 1, matchedBy: 'phone', active: r.is_active });
    }
  }
  const taxCode = normalizeTaxCode(query);
  if (taxCode && taxCode.length >= 11 && /[A-Z]/.test(taxCode) && /\d/.test(taxCode) && !query.includes('@')) {
    const rows = await patientsWith(db, scope, 'taxCode', taxCode);
    for (const r of rows) add({ id: r.id, score: 1, matchedBy: 'taxCode', active: r.is_active });
  }
  if (hasLetters && !query.includes('@') && found.size === 0 && words.length > 0 && words.length <= MAX_NAME_WORDS && words.join(' ').length >= 2) {
    // Nicknames ("pino esposito") are searched as their registered forms too, in the same reads.
    const variants = nicknameVariants(words);
    const [own, ...viaNicknames] = await nameCandidates(db, scope, birthYear, [words, ...variants.map((v) => v.words)], params.limit);
    for (const c of own!) add(c);
    const weights = nicknameWeights(variants, viaNicknames);
    viaNicknames.forEach((found, i) => {
      for (const c of found) add({ ...c, score: round(c.score * weights[i]!), matchedBy: 'nickname' });
    });
  }

  const ranked = [...found.values()].sort((a, b) => b.score - a.score || Number(b.active) - Number(a.active) || (a.id < b.id ? -1 : 1));
  const best = ranked[0]?.score;
  const closeMatches = best === undefined ? 0 : ranked.filter((c) => round(c.score, 3) === round(best, 3)).length;
  // Second details: read only when sent (or when the query is a tax code, itself one); the
  // patients matching all of them come first.
  const asked = detailsAsked(
    params,
    ranked.some((c) => c.matchedBy === 'taxCode'),
  );
  const matched = asked.length > 0 ? await matchDetails(db, actor.clinicId, found, params, words) : new Map<string, DetailMatch>();
  const { patientId: confirmedId, confirmedBy } = confirmation(matched, asked, (id) => found.get(id)?.matchedBy);
  const confirmed = confirmedId !== null;
  if (asked.length > 0) {
    const full = (c: Candidate) => Number((matched.get(c.id)?.details.length ?? 0) === asked.length);
    ranked.sort((a, b) => full(b) - full(a));
  }
  // An agent (a voice agent, a chat bot) gets a patient only once confirmed: a hit would give
  // it an id to book, read out or move for whoever says a name close to a patient's. It gets
  // how many the query found and what to ask for instead (CONFIRMING_ALONE, not yet sent).
  if (isAgent(actor)) {
    const extra = { candidates: found.size, askFor: confirmed ? [] : detailsToAsk(asked, found.size) };
    const data = confirmed ? await hits(db, actor.clinicId, [found.get(confirmedId)!], matched) : [];
    return { data, closeMatches, confirmed, confirmedBy, ...extra };
  }
  const data = await hits(db, actor.clinicId, ranked.slice(0, params.limit), matched);
  return { data, closeMatches, confirmed, confirmedBy };
}

/** Voice agents and chat bots: keys whose `agent` is not `none` (src/core/actor.ts). */
const isAgent = (actor: Partial<Pick<Actor, 'agent'>>) => actor.agent !== undefined && actor.agent !== 'none';

/** The hits of the candidates, in their order: what a hit shows, one statement. */
async function hits(db: Db, clinicId: string, top: Candidate[], matched: Map<string, DetailMatch>): Promise<SearchHit[]> {
  if (top.length === 0) return [];
  const details = await hitDetails(
    db,
    clinicId,
    top.map((c) => c.id),
  );
  const byId = new Map(details.map((d) => [d.id, d]));
  return top.map((c): SearchHit => {
    const d = byId.get(c.id)!;
    const phoneDigits = d.phone?.replace(/\D/g, '') ?? '';
    const last = d.last_visit_at as unknown as Date | string | null;
    return {
      id: d.id,
      name: `${d.first_name ?? ''} ${d.last_name ?? ''}`.trim(),
      birthYear: d.date_of_birth ? Number(d.date_of_birth.slice(0, 4)) : null,
      phoneLast4: phoneDigits.length >= 4 ? phoneDigits.slice(-4) : null,
      archived: !d.is_active,
      score: c.score,
      matchedBy: c.matchedBy,
      confirmedBy: matched.get(c.id)?.details ?? [],
      lastVisitAt: last ? new Date(last).toISOString() : null,
    };
  });
}
