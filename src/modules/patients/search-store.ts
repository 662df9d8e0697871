/**
 * The patient search's SQL (search.ts holds its rules: what a query is tried as, the ranking,
 * the confirmation), and the writes of what it reads: a patient's search columns and the
 * clinic's name vocabulary (migration 0010, vocabulary.ts). Every read leads with the clinic and
 * is an index lookup; the statements and their round trips are the search's tuning (README.md in
 * this folder).
 */
import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { normalizeName, normalizeTaxCode } from './normalize.js';
import { vocabularyOf, type Vocabulary } from './vocabulary.js';

/** Appointment statuses that are not a visit that took place. */
const NOT_A_VISIT = ['cancelled', 'no_show', 'draft', 'postponed'];

/** Which patients a search sees: the clinic's, of the key's facilities, of the facility asked for. */
export interface SearchScope {
  clinicId: string;
  facilityIds: readonly string[] | null;
  facilityId: string | null;
}

type Base = (conn: Db) => SelectQueryBuilder<DB, 'patients', { id: string; is_active: boolean }>;

function visible(scope: SearchScope): Base {
  return (conn) => {
    let q = conn.selectFrom('patients').select(['id', 'is_active']).where('clinic_id', '=', scope.clinicId);
    if (scope.facilityIds !== null) q = q.where(sql<boolean>`facility_id = ANY(${[...scope.facilityIds]}::uuid[])`);
    if (scope.facilityId) q = q.where('facility_id', '=', scope.facilityId);
    return q;
  };
}

/** The patients not erased of the scope. */
const unerased = (scope: SearchScope): Base => {
  const v = visible(scope);
  return (conn) => v(conn).where('erased_at', 'is', null);
};

/**
 * The patients a name condition is applied to: born in `birthYear` when one is asked. Erasing a
 * patient nulls first_norm and last_norm, so a name condition never meets an erased one: without
 * the erased_at test the name lookups are index-only (migration 0061).
 */
function byName(scope: SearchScope, birthYear: number | null): Base {
  const v = visible(scope);
  return birthYear === null
    ? v
    : (conn) =>
        v(conn)
          .where('date_of_birth', '>=', `${birthYear}-01-01`)
          .where('date_of_birth', '<', `${birthYear + 1}-01-01`);
}

/** The patients (100 at most) whose email, canonical phone or tax code is the value asked. */
export function patientsWith(db: Db, scope: SearchScope, field: 'email' | 'phone' | 'taxCode', value: string) {
  const q = unerased(scope)(db);
  if (field === 'email')
    return q
      .where(sql<boolean>`lower(email) = ${value}`)
      .limit(100)
      .execute();
  if (field === 'phone') return q.where('phone', '=', value).limit(100).execute();
  return q.where('tax_code_norm', '=', value).limit(100).execute();
}

/**
 * The vocabulary's names reached by the parts of a name: by their Double Metaphone key (`part`
 * set) or by a deletion key (`key` set), in one statement.
 */
export async function termsByKeys(db: Db, clinicId: string, parts: string[], keys: string[]) {
  const { rows } = await sql<{ part: string | null; key: string | null; term: string }>`
    WITH p AS (SELECT part, dmetaphone(part) AS code FROM unnest(${parts}::text[]) AS part)
    SELECT p.part, NULL AS key, t.term FROM p JOIN patient_name_terms t ON t.clinic_id = ${clinicId} AND t.phon = p.code
    UNION ALL
    SELECT NULL, k.key, k.term FROM patient_name_keys k WHERE k.clinic_id = ${clinicId} AND k.key = ANY(${keys}::text[])`.execute(db);
  return rows;
}

/** The vocabulary's names of about each part's length within its edit limit (levenshtein). */
export async function termsWithinEdits(db: Db, clinicId: string, parts: string[], limits: number[]) {
  const { rows } = await sql<{ part: string; term: string }>`
      SELECT x.part, t.term FROM unnest(${parts}::text[], ${limits}::int[]) AS x(part, lim),
        LATERAL (SELECT term FROM patient_name_terms WHERE clinic_id = ${clinicId}
          AND char_length(term) BETWEEN char_length(x.part) - x.lim AND char_length(x.part) + x.lim
          AND levenshtein_less_equal(x.part, term, x.lim) <= x.lim) t`.execute(db);
  return rows;
}

/** A name condition: a first name among `first`, a last name among `last`, or both. */
export interface NameCondition {
  first?: string[];
  last?: string[];
}

/** What a reading of a name query asks the patients for: its name (for the trigram similarity) and its conditions. */
interface NameGroup {
  name: string;
  conditions: NameCondition[];
}

/**
 * For each group (a reading of the query: the words as said, a nickname's registered form),
 * the best `candidates` patients meeting any of its conditions (at least one), by the trigram
 * similarity of their name to the group's name, then id; each row carries its group's index
 * `g`. One statement for every group: the conditions' names probed in the (clinic, first,
 * last) and (clinic, last, first) indexes by three SELECTs united (below), where one OR of them
 * all was planned as a scan of the clinic's patients. Names first,
 * patients after: a common surname alone brings thousands of namesakes but a few hundred
 * distinct names, so the distinct (first, last) names are counted (UNION: a patient two
 * conditions of a group meet counts once) and given their trigram similarity (computed once
 * per name), and only the names that reach the best `candidates` patients are looked up again
 * for their patients (one index-only probe per name). Names tied at the cut all come, so each
 * group's answer is the best `candidates` rows by (similarity, id), as one sort of every row
 * would give.
 */
export async function patientsOfNames(db: Db, scope: SearchScope, birthYear: number | null, groups: NameGroup[], candidates: number) {
  const base = byName(scope, birthYear);
  // Only columns of the (clinic, first, last) and (clinic, last, first) indexes: index-only;
  // trim(first || ' ' || last) is full_norm. A name condition never meets an erased patient
  // (their names are null), so first_norm and last_norm are never null here.
  // Three branches whatever the number of groups and conditions (planning a branch per
  // condition cost more than running them, for a nickname's six forms): the (first, last) pairs
  // of the conditions that have both, the first names of those with a first name only, the last
  // names of the others, each row of them tagged with its group and probed in its index.
  const pairs: Array<[number, string, string]> = [];
  const single = { first: [] as Array<[number, string]>, last: [] as Array<[number, string]> };
  groups.forEach((group, g) => {
    for (const c of group.conditions) {
      if (c.first && c.last) for (const f of c.first) for (const l of c.last) pairs.push([g, f, l]);
      else if (c.first) for (const f of c.first) single.first.push([g, f]);
      else for (const l of c.last!) single.last.push([g, l]);
    }
  });
  const tagged = (rows: RawBuilder<unknown>, on: RawBuilder<boolean>) =>
    base(db)
      .clearSelect()
      .innerJoin(rows.as('c'), (join) => join.on(on))
      .select([sql<number>`c.g`.as('g'), 'id', 'first_norm', 'last_norm']);
  const column = (values: Array<[number, ...string[]]>, i: number) => values.map((v) => v[i]);
  const branches = [
    pairs.length > 0 &&
      tagged(
        sql`(SELECT * FROM unnest(${column(pairs, 0)}::int[], ${column(pairs, 1)}::text[], ${column(pairs, 2)}::text[]) AS x(g, f, l))`,
        sql<boolean>`first_norm = c.f AND last_norm = c.l`,
      ),
    single.first.length > 0 &&
      tagged(sql`(SELECT * FROM unnest(${column(single.first, 0)}::int[], ${column(single.first, 1)}::text[]) AS x(g, n))`, sql<boolean>`first_norm = c.n`),
    single.last.length > 0 &&
      tagged(sql`(SELECT * FROM unnest(${column(single.last, 0)}::int[], ${column(single.last, 1)}::text[]) AS x(g, n))`, sql<boolean>`last_norm = c.n`),
  ].filter((b) => b !== false);
  let united = branches[0]!;
  for (const b of branches.slice(1)) united = united.union(b);
  const patientsOf = base(db)
    .select(['first_norm', 'last_norm'])
    .where(sql<boolean>`first_norm = r.f AND last_norm = r.l`);
  const names = groups.map((group) => group.name);
  const { rows } = await sql<{ g: number; id: string; is_active: boolean; first_norm: string; last_norm: string; trgm: number }>`
      WITH names AS MATERIALIZED (
          SELECT g, first_norm AS f, last_norm AS l, count(*) AS n,
            similarity(trim(first_norm || ' ' || last_norm), (${names}::text[])[g + 1]) AS trgm
          FROM (${united}) u GROUP BY g, first_norm, last_norm),
        -- better: the patients of names more similar than this one (the first sum counts its ties
        -- too, the second takes them off; one window with EXCLUDE GROUP costs 6x the whole query).
        r AS (SELECT g, f, l, trgm, sum(n) OVER (PARTITION BY g ORDER BY trgm DESC) - sum(n) OVER (PARTITION BY g, trgm) AS better
          FROM names)
      SELECT g, id, is_active, first_norm, last_norm, trgm FROM (
        SELECT r.g, p.id, p.is_active, p.first_norm, p.last_norm, r.trgm, row_number() OVER (PARTITION BY r.g ORDER BY r.trgm DESC, p.id) AS k
        FROM r CROSS JOIN LATERAL (${patientsOf}) p
        WHERE r.better < ${candidates}) x
      WHERE k <= ${candidates}`.execute(db);
  return rows;
}

/** What a hit shows of each patient, with the last visit that took place (one statement). */
export function hitDetails(db: Db, clinicId: string, ids: string[]) {
  return db
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
          .where('a.clinic_id', '=', clinicId)
          .where('a.start_at', '<=', sql<Date>`now()`)
          .where('a.status', 'not in', NOT_A_VISIT)
          .as('last_visit_at'),
    ])
    .where('p.clinic_id', '=', clinicId)
    .where('p.id', 'in', ids)
    .execute();
}

/** The second details (confirm.ts) of the candidates and their names (is the name said their own?): one read by primary key. */
export function detailRows(db: Db, clinicId: string, ids: string[]) {
  return db
    .selectFrom('patients')
    .select(['id', 'date_of_birth', 'phone', 'tax_code_norm', 'first_norm', 'last_norm'])
    .where('clinic_id', '=', clinicId)
    .where('id', 'in', ids)
    .execute();
}

/** The search and duplicate-check columns of a name and tax code (dmetaphone is computed by the database). */
export function searchColumns(firstName: string | null, lastName: string | null, taxCode: string | null) {
  const first = normalizeName(firstName);
  const last = normalizeName(lastName);
  const full = `${first} ${last}`.trim();
  return {
    first_norm: first || null,
    last_norm: last || null,
    full_norm: full || null,
    phon_first: first ? sql<string>`dmetaphone(${first})` : null,
    phon_last: last ? sql<string>`dmetaphone(${last})` : null,
    tax_code_norm: normalizeTaxCode(taxCode),
  };
}

/**
 * The CTEs that add a vocabulary (see migration 0010): `name_terms` inserts the terms the
 * clinic lacks and returns them, `name_keys` the keys of those terms only. Rows go in sorted
 * order (terms, then keys in the order of their terms), so concurrent writers never take two
 * names in opposite orders. `when`: a condition on the statement's other CTEs (e.g. that the
 * patient was inserted); no row is added when it is false.
 */
export function vocabularyCtes(clinicId: string, v: Vocabulary, when: RawBuilder<boolean> = sql<boolean>`true`) {
  return sql`name_terms AS (
      INSERT INTO patient_name_terms (clinic_id, term, phon)
      SELECT ${clinicId}::uuid, t, dmetaphone(t) FROM unnest(${v.terms}::text[]) WITH ORDINALITY AS x(t, n) WHERE ${when} ORDER BY n
      ON CONFLICT DO NOTHING RETURNING term
    ), name_keys AS (
      INSERT INTO patient_name_keys (clinic_id, key, term)
      SELECT ${clinicId}::uuid, k, t FROM unnest(${v.keys}::text[], ${v.of}::text[]) WITH ORDINALITY AS x(k, t, n)
      WHERE t IN (SELECT term FROM name_terms) ORDER BY n
      ON CONFLICT DO NOTHING
    )`;
}

/**
 * Adds names to the clinic's search vocabulary and their deletion keys (see migration 0010), in
 * one statement. Takes the database handle too: the vocabulary only grows (ON CONFLICT DO
 * NOTHING), so a bulk load (bench/search.ts) may add terms outside a patient's transaction.
 */
export async function addNameTerms(trx: Db, clinicId: string, names: Array<string | null | undefined>): Promise<void> {
  const vocabulary = vocabularyOf(names);
  if (!vocabulary) return;
  await sql`WITH ${vocabularyCtes(clinicId, vocabulary)} SELECT 1`.execute(trx);
}

/** Names no other patient of the clinic has leave the search vocabulary (an erasure's). */
export async function forgetNameTerms(trx: Transaction, clinicId: string, terms: string[]): Promise<void> {
  if (terms.length === 0) return;
  const { rows: gone } = await sql<{
    term: string;
  }>`DELETE FROM patient_name_terms t WHERE t.clinic_id = ${clinicId} AND t.term = ANY(${terms}::text[])
        AND NOT EXISTS (SELECT 1 FROM patients p WHERE p.clinic_id = t.clinic_id AND (p.first_norm = t.term OR p.last_norm = t.term))
        RETURNING t.term`.execute(trx);
  if (gone.length > 0) {
    await sql`DELETE FROM patient_name_keys WHERE clinic_id = ${clinicId} AND term = ANY(${gone.map((g) => g.term)}::text[])`.execute(trx);
  }
}
