/**
 * The clinic's name vocabulary (migration 0010) and a patient's search columns: what the name
 * search (search.ts) reads, written by creation, update, import and erasure (store.ts).
 */
import { sql, type RawBuilder } from 'kysely';
import type { Db, Transaction } from '../../db/transaction.js';
import { lookupKeys, normalizeName, normalizeTaxCode } from './normalize.js';

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

/** The vocabulary rows of some names: their terms, sorted, and each term's lookup keys, in that order. */
export interface Vocabulary {
  terms: string[];
  keys: string[];
  /** The term of each key. */
  of: string[];
}

export function vocabularyOf(names: Array<string | null | undefined>): Vocabulary | null {
  const terms = [...new Set(names.map((n) => normalizeName(n)).filter((n) => n.length > 0))].sort();
  if (terms.length === 0) return null;
  const keys: string[] = [];
  const of: string[] = [];
  for (const term of terms) {
    for (const key of lookupKeys(term)) {
      keys.push(key);
      of.push(term);
    }
  }
  return { terms, keys, of };
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
