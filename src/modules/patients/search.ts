/**
 * Patient search (spec 2.4, 4.3). A query is tried as what it can be:
 * - an email (it has an `@`): equal address, any letter case;
 * - a phone (no letters, at least 6 digits): equal canonical E.164 number, any input format;
 * - a tax code (letters and digits, 11-16 characters once spaces are dropped): equal, any case;
 * - a name (it has letters and no `@`), with an optional birth year ("rossi 1975"):
 *   candidates come from the clinic's name vocabulary (see nameCandidates), each is scored by
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
import { deletionKeys, nameScore, normalizeName, normalizeTaxCode, osaDistance } from './normalize.js';
import { confirmation, detailsAsked, detailsToAsk, matchDetails, type DetailMatch } from './confirm.js';
import { nicknameVariants } from './nicknames.js';
import { facilityOfClinic } from '../facilities/index.js';
import { hitDetails, patientsOfNames, patientsWith, termsByKeys, termsWithinEdits, type NameCondition, type SearchScope } from './search-store.js';

type MatchedBy = SearchHit['matchedBy'];

/**
 * Tuning of the name search (bench/search.ts measures its effect): how many candidates the
 * database hands to the scorer (the most similar by trigrams) and the score below which a
 * candidate is not an answer.
 */
export const SEARCH_TUNING = {
  candidates: 200,
  minScore: 0.45,
};

interface Candidate {
  id: string;
  score: number;
  matchedBy: MatchedBy;
  active: boolean;
}

const round = (n: number, digits = 4) => Math.round(n * 10 ** digits) / 10 ** digits;

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

/** Close names kept per part, of them words of longer names, and (first, last) pairs probed per cut. */
const MAX_CLOSE_TERMS = 40;
const MAX_PARTIAL_TERMS = 8;
const MAX_NAME_PAIRS = 300;

/** Edits a part may be from a name of the vocabulary: 1 up to 4 letters, 2 up to 8, 3 beyond. */
const editLimit = (part: string) => (part.length <= 4 ? 1 : part.length <= 8 ? 2 : 3);

/**
 * How far a part is from a name of the vocabulary: the edit distance, or, when the part is
 * some of the words of a longer name ("grazia" in "maria grazia"), the distance to those
 * words plus one half (the whole name, when as close, comes first).
 */
function termDistance(part: string, term: string, limit: number): number {
  // The distance is at least the difference in length: most of the vocabulary a key lookup
  // returns for other parts is skipped without computing it.
  const within = (other: string) => Math.abs(other.length - part.length) <= limit;
  let d = within(term) ? osaDistance(part, term) : Infinity;
  const words = term.split(' ');
  const partWords = part.split(' ').length;
  if (words.length > partWords) {
    for (let i = 0; i + partWords <= words.length; i++) {
      const run = words.slice(i, i + partWords).join(' ');
      if (within(run)) d = Math.min(d, osaDistance(part, run) + 0.5);
    }
  }
  return d;
}

/**
 * Name candidates, every step an index lookup that leads with the clinic:
 * 1. parts of the query: the whole of it, every way of cutting it into a first and a last
 *    name ("maria grazia rossi": "maria" + "grazia rossi", "maria grazia" + "rossi"), and
 *    each word;
 * 2. the names of the clinic's vocabulary close to each part: those sharing a lookup key
 *    with it (normalize.ts lookupKeys: within one edit or transposition, or a word of a
 *    longer name) or its Double Metaphone key (two edits past the limit at most); for a part
 *    that no name within one edit reaches this way (two errors in one word, speech-to-text
 *    spellings), the names of about its length within its edit limit
 *    (levenshtein_less_equal over patient_name_terms_length_idx). Kept: at most one edit
 *    farther than the closest, 40 at most;
 * 3. patients whose first and last name are close names of the two sides of a cut, in
 *    either order, or whose first or last name is a close name of the whole query (a
 *    surname alone, "de luca"; a compound first name alone), through the (clinic, first,
 *    last) and (clinic, last, first) btree indexes; when none of them scores as an answer,
 *    those whose first or last name is close to any one word.
 * No step reads more than the clinic's vocabulary and the patients with the names found.
 */
async function nameCandidates(db: Db, scope: SearchScope, birthYear: number | null, words: string[], limit: number) {
  const name = words.join(' ');
  const splits: Array<[string, string]> = [];
  for (let i = 1; i < words.length; i++) splits.push([words.slice(0, i).join(' '), words.slice(i).join(' ')]);
  const parts = [...new Set([name, ...splits.flat(), ...words])];
  // Which parts each deletion key stands for: a name a key reaches is measured against those parts only.
  const partsOfKey = new Map<string, string[]>();
  for (const part of parts) for (const key of deletionKeys(part)) partsOfKey.set(key, [...(partsOfKey.get(key) ?? []), part]);
  const termRows = await termsByKeys(db, scope.clinicId, parts, [...partsOfKey.keys()]);
  const scored = new Map<string, Map<string, number>>(parts.map((p) => [p, new Map()]));
  const phonetic: Array<{ part: string; term: string }> = [];
  for (const r of termRows) {
    if (r.part !== null) {
      phonetic.push({ part: r.part, term: r.term });
      continue;
    }
    for (const part of partsOfKey.get(r.key!) ?? []) {
      const m = scored.get(part)!;
      if (m.has(r.term)) continue;
      const limit = editLimit(part);
      const d = termDistance(part, r.term, limit);
      if (d <= limit) m.set(r.term, d);
    }
  }
  // Sound-alikes may be two edits past the limit ("k" for "ch" is two): Double Metaphone
  // keeps only the first sounds of a name, so "alessandro mastrangemlo" sounds like
  // "alessandro" and a sound-alike far off in spelling is not one.
  for (const { part, term } of phonetic) {
    const m = scored.get(part)!;
    const limit = editLimit(part) + 2;
    const d = m.has(term) ? limit : termDistance(part, term, limit);
    if (!m.has(term) && d <= limit) m.set(term, d);
  }
  // Parts no name within one edit reached: the names of about their length, within the
  // part's edit limit. When a cut already has both sides within one edit, only single
  // words are looked for this way (the whole query is rarely one name, and it costs a scan).
  const reached = (p: string) => Math.min(...scored.get(p)!.values()) <= 1;
  const paired = splits.some(([a, b]) => reached(a) && reached(b));
  const unreached = parts.filter((p) => !reached(p) && Array.from(p).length >= 3 && (!paired || !p.includes(' ')));
  if (unreached.length > 0) {
    const rows = await termsWithinEdits(db, scope.clinicId, unreached, unreached.map(editLimit));
    for (const r of rows) {
      const d = osaDistance(r.part, r.term);
      if (d <= editLimit(r.part)) scored.get(r.part)!.set(r.term, d);
    }
  }
  const close = new Map<string, string[]>();
  for (const [part, m] of scored) {
    if (m.size === 0) continue;
    // Names more than one edit farther than the closest one would only lose to it in the score.
    // Words of longer names ("de" in every "de …" surname) are kept to a few.
    const best = Math.min(...m.values());
    let partial = 0;
    const kept = [...m.entries()]
      .filter(([, d]) => d <= best + 1)
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
      .filter(([, d]) => d % 1 === 0 || ++partial <= MAX_PARTIAL_TERMS);
    close.set(
      part,
      kept.slice(0, MAX_CLOSE_TERMS).map(([t]) => t),
    );
  }
  const near = (part: string) => close.get(part) ?? [];
  const firstOrLast = (names: string[]): NameCondition[] => (names.length > 0 ? [{ first: names }, { last: names }] : []);
  const asFirstOrLast = (part: string) => firstOrLast(near(part));

  const conditions = asFirstOrLast(name);
  for (const [a, b] of splits) {
    let ca = near(a);
    let cb = near(b);
    if (ca.length === 0 || cb.length === 0) continue;
    // Each pair of names is one index probe: the farthest names go first when they are too many.
    while (ca.length * cb.length > MAX_NAME_PAIRS) {
      if (ca.length >= cb.length) ca = ca.slice(0, -1);
      else cb = cb.slice(0, -1);
    }
    conditions.push({ first: ca, last: cb }, { first: cb, last: ca });
  }
  // The patients of the names found: patientsOfNames (search-store.ts) reads the best
  // `candidates` by trigram similarity, and each distinct name is scored here.
  const scoredRows = async (where: NameCondition[]) => {
    // Namesakes are many (a common surname alone): each distinct name is scored once.
    const scores = new Map<string, number>();
    const out: Candidate[] = [];
    for (const r of where.length > 0 ? await patientsOfNames(db, scope, birthYear, name, where, SEARCH_TUNING.candidates) : []) {
      const key = `${r.first_norm ?? ''}|${r.last_norm ?? ''}`;
      let s = scores.get(key);
      if (s === undefined) scores.set(key, (s = nameScore(name, r.first_norm ?? '', r.last_norm ?? '')));
      const score = round(Math.min(1, 0.9 * s + 0.1 * Number(r.trgm)));
      if (score >= SEARCH_TUNING.minScore) out.push({ id: r.id, score, matchedBy: 'name', active: r.is_active });
    }
    return out;
  };
  if (words.length === 1 && near(name)[0] === name) {
    // One word that is itself a name of the clinic ("giorgio"): each patient carrying it has
    // a nameScore of at least 0.8375 (a name alone among up to four words); a patient whose
    // name is an edit away at most 0.875 * (1 - 1/n) for a word of n letters, and fewer
    // trigrams in common with the query: a lower score. Except when the edit is a space
    // ("gian luca" for "gianluca", compared without spaces) or the word is part of a longer
    // name (distance 0.5, "giorgio" in "giorgio maria"): those are read with it. The others
    // are read only when the word's own patients do not fill the page. The page, its order and
    // closeMatches stay what reading them all gives (the same answers for 2,362 single words,
    // typos and birth years of the benchmark's corpus at limits 1, 5 and 20); a common first
    // name reads half the rows.
    const m = scored.get(name)!;
    const own = near(name).filter((t) => m.get(t)! < 1 || t.replace(/ /g, '') === name);
    const found = await scoredRows(firstOrLast(own));
    if (found.length >= limit) return found;
  }
  const found = await scoredRows(conditions);
  if (found.length > 0 || words.length === 1) return found;
  // Nobody with the name as cut scores as an answer: patients with any one of its words as
  // first or last name ("signora rossi", a first name the patient is not registered with).
  return scoredRows(words.flatMap(asFirstOrLast));
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
    // Nicknames ("pino esposito") are searched as their registered forms too, at once.
    const variants = nicknameVariants(words);
    const [own, ...viaNicknames] = await Promise.all(
      [words, ...variants.map((v) => v.words)].map((w) => nameCandidates(db, scope, birthYear, w, params.limit)),
    );
    for (const c of own!) add(c);
    viaNicknames.forEach((found, i) => {
      for (const c of found) add({ ...c, score: round(c.score * variants[i]!.weight), matchedBy: 'nickname' });
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
