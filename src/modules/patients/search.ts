/**
 * Patient search (spec 2.4, 4.3). A query is tried as what it can be:
 * - an email (it has an `@`): equal address, any letter case;
 * - a phone (no letters, at least 6 digits): equal canonical E.164 number, any input format;
 * - a tax code (letters and digits, 11-16 characters once spaces are dropped): equal, any case;
 * - a name (it has letters and no `@`): candidates come from the clinic's name vocabulary
 *   (edit distance and Double Metaphone, see nameCandidates) or, failing that, from the
 *   trigram index on the normalized full name; each candidate is then scored by `nameScore`
 *   (optimal-string-alignment edit distance on the whole name in both orders and token by
 *   token), blended with the trigram similarity. Exact matches of email, phone and tax code
 *   score 1.
 * `closeMatches` counts the candidates whose score equals the best one (3 decimals).
 */
import type { CountryCode } from 'libphonenumber-js';
import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { TenantScope } from '../../db/tenant.js';
import { ApiError } from '../../core/errors.js';
import { toCanonicalPhone } from '../../lib/phone.js';
import { deletionKeys, nameScore, normalizeName, normalizeTaxCode, osaDistance } from './normalize.js';

type Db = Kysely<DB>;

export type MatchedBy = 'name' | 'phone' | 'taxCode' | 'email';

export interface SearchHit {
  id: string;
  name: string;
  birthYear: number | null;
  phoneLast4: string | null;
  archived: boolean;
  score: number;
  matchedBy: MatchedBy;
  lastVisitAt: string | null;
}

export interface SearchResult {
  data: SearchHit[];
  closeMatches: number;
}

export interface SearchParams {
  q: string;
  facilityId?: string;
  limit: number;
}

/**
 * Tuning of the name search (bench/search.ts measures its effect): how many candidates the
 * database hands to the scorer, the pg_trgm thresholds of the two trigram branches, and the
 * score below which a candidate is not an answer.
 */
export const SEARCH_TUNING = {
  candidates: 200,
  similarityThreshold: 0.35,
  wordSimilarityThreshold: 0.6,
  minScore: 0.45,
};
/** Appointment statuses that are not a visit that took place. */
const NOT_A_VISIT = ['cancelled', 'no_show', 'draft', 'postponed'];

interface Candidate {
  id: string;
  score: number;
  matchedBy: MatchedBy;
  active: boolean;
}

type Base = (conn: Kysely<DB>) => SelectQueryBuilder<DB, 'patients', { id: string; is_active: boolean }>;

/**
 * Name candidates, in two steps that each use an index:
 * 1. every way of cutting the query into a first and a last name ("maria grazia rossi":
 *    "maria" + "grazia rossi", "maria grazia" + "rossi") gives parts; the names of the
 *    clinic's vocabulary close to each part are those sharing a deletion key with it (within
 *    one edit or transposition, up to two edits in all; kept within 1 edit for parts up to
 *    4 letters, 2 up to 8, 3 beyond, by optimal-string-alignment distance) or its Double
 *    Metaphone key (fuzzystrmatch); per part, those at most one edit farther than the
 *    closest, 40 at most;
 * 2. patients whose first and last name are close names of the two parts, in either order
 *    (a one-word query: whose first or last name is), through the (clinic, first, last)
 *    and (clinic, last, first) btree indexes.
 * When that finds nobody, the trigram index on the full name is asked instead
 * (`%` similarity and `<%` word similarity), which also covers names split differently.
 */
async function nameCandidates(db: Kysely<DB>, clinicId: string, name: string, base: Base) {
  const tokens = name.split(' ').filter(Boolean);
  const splits: Array<[string, string]> = [];
  for (let i = 1; i < tokens.length; i++) splits.push([tokens.slice(0, i).join(' '), tokens.slice(i).join(' ')]);
  const parts = [...new Set(tokens.length === 1 ? [name] : splits.flat())];
  const variants = [...new Set(parts.flatMap(deletionKeys))];
  const { rows: termRows } = await sql<{ part: string | null; term: string }>`
    WITH p AS (SELECT part, dmetaphone(part) AS code FROM unnest(${parts}::text[]) AS part)
    SELECT p.part, t.term FROM p JOIN patient_name_terms t ON t.clinic_id = ${clinicId} AND t.phon = p.code
    UNION ALL
    SELECT NULL, k.term FROM patient_name_keys k WHERE k.clinic_id = ${clinicId} AND k.key = ANY(${variants}::text[])`.execute(db);
  const byKey = new Set<string>();
  const byPhon = new Map<string, Set<string>>();
  for (const r of termRows) {
    if (r.part === null) byKey.add(r.term);
    else byPhon.set(r.part, (byPhon.get(r.part) ?? new Set()).add(r.term));
  }
  const close = new Map<string, string[]>();
  for (const part of parts) {
    const limit = part.length <= 4 ? 1 : part.length <= 8 ? 2 : 3;
    const scored = new Map<string, number>();
    for (const term of byKey) {
      const d = osaDistance(part, term);
      if (d <= limit) scored.set(term, d);
    }
    for (const term of byPhon.get(part) ?? []) if (!scored.has(term)) scored.set(term, osaDistance(part, term));
    // Names more than one edit farther than the closest one would only lose to it in the score.
    const best = Math.min(...scored.values());
    close.set(part, [...scored.entries()].filter(([, d]) => d <= best + 1).sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 40).map(([t]) => t));
  }
  const near = (part: string) => close.get(part) ?? [];

  const conditions = [];
  if (tokens.length === 1) {
    const c = near(name);
    if (c.length > 0) conditions.push(sql`first_norm = ANY(${c}::text[])`, sql`last_norm = ANY(${c}::text[])`);
  } else {
    for (const [a, b] of splits) {
      const ca = near(a);
      const cb = near(b);
      if (ca.length === 0 || cb.length === 0) continue;
      conditions.push(sql`(first_norm = ANY(${ca}::text[]) AND last_norm = ANY(${cb}::text[]))`);
      conditions.push(sql`(first_norm = ANY(${cb}::text[]) AND last_norm = ANY(${ca}::text[]))`);
    }
  }
  const select = (where: RawBuilder<unknown>, conn: Kysely<DB> = db) =>
    base(conn)
      .select(['first_norm', 'last_norm', sql<number>`similarity(full_norm, ${name})`.as('trgm')])
      .where(where as RawBuilder<boolean>)
      .orderBy('trgm', 'desc')
      .limit(SEARCH_TUNING.candidates)
      .execute();
  if (conditions.length > 0) {
    const rows = await select(sql`(${sql.join(conditions, sql` OR `)})`);
    if (rows.length > 0) return rows;
  }
  // The trigram thresholds are set for this transaction only (set_config(..., true)).
  return db.transaction().execute(async (t) => {
    await sql`SELECT set_config('pg_trgm.similarity_threshold', ${String(SEARCH_TUNING.similarityThreshold)}, true), set_config('pg_trgm.word_similarity_threshold', ${String(SEARCH_TUNING.wordSimilarityThreshold)}, true)`.execute(t);
    return select(sql`id IN (SELECT id FROM patients WHERE full_norm % ${name} UNION SELECT id FROM patients WHERE ${name} <% full_norm)`, t);
  });
}

const round = (n: number, digits = 4) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function searchPatients(db: Db, scope: TenantScope, region: CountryCode, params: SearchParams): Promise<SearchResult> {
  const query = params.q.trim();
  if (params.facilityId) {
    const facilityId = params.facilityId.toLowerCase();
    const seen = scope.facilityIds === null || scope.facilityIds.includes(facilityId);
    const exists = seen && (await db.selectFrom('facilities').select('id').where('id', '=', facilityId).where('clinic_id', '=', scope.clinicId).executeTakeFirst());
    if (!exists) throw ApiError.invalid('query', [{ path: 'facilityId', message: 'sede inesistente o non accessibile con questa chiave' }]);
  }
  const facilityId = params.facilityId?.toLowerCase() ?? null;

  // Plain reads, no transaction: the trigram fallback opens its own for its settings.
  const base: Base = (conn) => {
    let q = conn
      .selectFrom('patients')
      .select(['id', 'is_active'])
      .where('clinic_id', '=', scope.clinicId)
      .where('erased_at', 'is', null);
    if (scope.facilityIds !== null) q = q.where(sql<boolean>`facility_id = ANY(${[...scope.facilityIds]}::uuid[])`);
    if (facilityId) q = q.where('facility_id', '=', facilityId);
    return q;
  };
  const found = new Map<string, Candidate>();
  const add = (c: Candidate) => {
    const prev = found.get(c.id);
    if (!prev || prev.score < c.score) found.set(c.id, c);
  };

  const hasLetters = /\p{L}/u.test(query);
  const digits = query.replace(/\D/g, '');
  if (query.includes('@')) {
    const rows = await base(db).where(sql<boolean>`lower(email) = ${query.toLowerCase()}`).limit(100).execute();
    for (const r of rows) add({ id: r.id, score: 1, matchedBy: 'email', active: r.is_active });
  }
  if (!hasLetters && digits.length >= 6) {
    const phone = toCanonicalPhone(query, region);
    if (phone) {
      const rows = await base(db).where('phone', '=', phone).limit(100).execute();
      for (const r of rows) add({ id: r.id, score: 1, matchedBy: 'phone', active: r.is_active });
    }
  }
  const taxCode = normalizeTaxCode(query);
  if (taxCode && taxCode.length >= 11 && /[A-Z]/.test(taxCode) && /\d/.test(taxCode) && !query.includes('@')) {
    const rows = await base(db).where('tax_code_norm', '=', taxCode).limit(100).execute();
    for (const r of rows) add({ id: r.id, score: 1, matchedBy: 'taxCode', active: r.is_active });
  }
  const name = normalizeName(query);
  if (hasLetters && !query.includes('@') && name.length >= 2 && found.size === 0) {
    const rows = await nameCandidates(db, scope.clinicId, name, base);
    for (const r of rows) {
      const s = nameScore(name, r.first_norm ?? '', r.last_norm ?? '');
      const score = round(Math.min(1, 0.9 * s + 0.1 * Number(r.trgm)));
      if (score >= SEARCH_TUNING.minScore) add({ id: r.id, score, matchedBy: 'name', active: r.is_active });
    }
  }

  const ranked = [...found.values()].sort((a, b) => b.score - a.score || Number(b.active) - Number(a.active) || (a.id < b.id ? -1 : 1));
  const best = ranked[0]?.score;
  const closeMatches = best === undefined ? 0 : ranked.filter((c) => round(c.score, 3) === round(best, 3)).length;
  const top = ranked.slice(0, params.limit);
  if (top.length === 0) return { data: [], closeMatches };

  const details = await db
    .selectFrom('patients as p')
    .select([
      'p.id',
      'p.first_name',
      'p.last_name',
      'p.date_of_birth',
      'p.phone',
      'p.is_active',
      (eb) =>
        eb
          .selectFrom('appointments as a')
          .select(sql<Date | null>`max(a.start_at)`.as('m'))
          .whereRef('a.patient_id', '=', 'p.id')
          .where('a.clinic_id', '=', scope.clinicId)
          .where('a.start_at', '<=', sql<Date>`now()`)
          .where('a.status', 'not in', NOT_A_VISIT)
          .as('last_visit_at'),
    ])
    .where('p.clinic_id', '=', scope.clinicId)
    .where('p.id', 'in', top.map((c) => c.id))
    .execute();
  const byId = new Map(details.map((d) => [d.id, d]));
  const data = top.map((c): SearchHit => {
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
      lastVisitAt: last ? new Date(last).toISOString() : null,
    };
  });
  return { data, closeMatches };
}
