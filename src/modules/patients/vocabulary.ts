/**
 * The clinic's name vocabulary (migration 0010): the terms and lookup keys a patient's names add,
 * what the name search (search.ts) reads. The statements that write it are search-store.ts's
 * (vocabularyCtes, addNameTerms, forgetNameTerms), used by creation, update, import and erasure.
 */
import { lookupKeys, normalizeName } from './normalize.js';

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
