/**
 * Text normalization shared by patient writes (the stored search columns) and by searches
 * and duplicate checks, so both sides compare the same forms.
 */

/** Lower case, accents removed, apostrophes dropped, other punctuation as spaces, single spaces. */
export function normalizeName(value: string | null | undefined): string {
  if (!value) return '';
  return value
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['’`´]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Tax code compared without case and without spaces or punctuation. */
export function normalizeTaxCode(value: string | null | undefined): string | null {
  if (!value) return null;
  const v = value.toUpperCase().replace(/[^A-Z0-9]/g, '');
  return v.length > 0 ? v : null;
}

export function normalizeEmail(value: string | null | undefined): string | null {
  return value ? value.trim().toLowerCase() : null;
}

/**
 * Optimal string alignment distance: Levenshtein plus the transposition of two adjacent
 * characters as one edit (the most common typing error, which plain Levenshtein counts twice).
 */
export function osaDistance(a: string, b: string): number {
  if (a === b) return 0;
  const m = a.length;
  const n = b.length;
  if (m === 0) return n;
  if (n === 0) return m;
  // Three rows reused across calls (a search computes thousands of distances): no garbage.
  if (rows[0].length <= n) rows = [new Int32Array(2 * n + 2), new Int32Array(2 * n + 2), new Int32Array(2 * n + 2)];
  let [prev2, prev, cur] = rows;
  for (let j = 0; j <= n; j++) prev[j] = j;
  let aPrev = -1;
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    const ai = a.charCodeAt(i - 1);
    let bPrev = -1;
    for (let j = 1; j <= n; j++) {
      const bj = b.charCodeAt(j - 1);
      let v = prev[j - 1]! + (ai === bj ? 0 : 1);
      if (prev[j]! + 1 < v) v = prev[j]! + 1;
      if (cur[j - 1]! + 1 < v) v = cur[j - 1]! + 1;
      if (ai === bPrev && aPrev === bj && prev2[j - 2]! + 1 < v) v = prev2[j - 2]! + 1;
      cur[j] = v;
      bPrev = bj;
    }
    // Rotate without an array literal: this loop runs for every row of every distance.
    const done = prev2;
    prev2 = prev;
    prev = cur;
    cur = done;
    aPrev = ai;
  }
  return prev[n]!;
}
let rows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/** 1 for equal strings, 0 for nothing in common: 1 - distance / longer length. */
function editSimilarity(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  return 1 - osaDistance(a, b) / longer;
}

/**
 * The most editSimilarity(a, b) can be for strings of these lengths: the distance is at
 * least the difference in length. The same arithmetic as editSimilarity, so the bound is
 * never below the similarity it stands for.
 */
function similarityBound(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  return 1 - Math.abs(a.length - b.length) / longer;
}

const words = (s: string) => s.split(' ').filter(Boolean);

/**
 * How well a name query matches a patient's first and last name, in [0, 1]:
 * - the whole query against "first last", "last first" and both without spaces (swapped
 *   names, typos, transpositions, missing or extra accents after normalization);
 * - token by token, for a part of a name ("rossi"): each query token against its best
 *   name token, lowered a little when the query names fewer tokens than the patient has,
 *   so that the complete match of a namesake ranks first;
 * - the first or the last name alone without spaces ("d alessandro", "deluca"), lowered the
 *   same way.
 * The score is the largest of these. A search scores hundreds of names, so a comparison is
 * skipped when the difference in lengths already keeps it at or below what is known (the
 * distance is at least that difference): the score is the same, with most distances not
 * computed (a surname alone against "first last" never wins on the whole name).
 */
export function nameScore(q: string, first: string, last: string): number {
  const bareQuery = q.replace(/ /g, '');
  const qTokens = words(q);
  const full = `${first} ${last}`;
  const nameTokens = words(full);
  let best = 0;
  if (qTokens.length > 0 && nameTokens.length > 0) {
    // Token by token, each query token taking the best name token not yet taken (the first
    // of equals). A token whose bound is not above the best so far cannot be taken instead.
    let sum = 0;
    const used: boolean[] = [];
    let usedCount = 0;
    for (const t of qTokens) {
      let bestToken = 0;
      let bestIndex = -1;
      for (let i = 0; i < nameTokens.length && bestToken < 1; i++) {
        if (used[i] || similarityBound(t, nameTokens[i]!) <= bestToken) continue;
        const s = editSimilarity(t, nameTokens[i]!);
        if (s > bestToken) {
          bestToken = s;
          bestIndex = i;
        }
      }
      if (bestIndex >= 0) {
        used[bestIndex] = true;
        usedCount++;
      }
      sum += bestToken;
    }
    const coverage = Math.min(1, usedCount / nameTokens.length);
    best = (sum / qTokens.length) * (0.8 + 0.15 * coverage);
    // The first or the last name alone, cut otherwise than it is stored ("d alessandro" for
    // "dalessandro", "deluca" for "de luca"): compared without spaces, weighed like a part.
    for (const field of [first, last]) {
      const fieldWords = words(field).length;
      if (fieldWords === 0 || fieldWords === nameTokens.length) continue;
      const weight = 0.8 + (0.15 * fieldWords) / nameTokens.length;
      const bare = field.replace(/ /g, '');
      if (similarityBound(bareQuery, bare) * weight > best) best = Math.max(best, editSimilarity(bareQuery, bare) * weight);
    }
  }
  // The whole name, in both orders, with and without spaces.
  for (const o of [full.trim(), `${last} ${first}`.trim()]) {
    if (similarityBound(q, o) > best) best = Math.max(best, editSimilarity(q, o));
    const bare = o.replace(/ /g, '');
    if (similarityBound(bareQuery, bare) > best) best = Math.max(best, editSimilarity(bareQuery, bare));
  }
  return best;
}

/**
 * The lookup keys of a name in the clinic's vocabulary (patient_name_keys): the name, every
 * form of it with one character removed (symmetric deletion: two names within one edit or
 * one transposition share a key), and, for a name of several words, each word ("grazia"
 * reaches "maria grazia").
 */
export function lookupKeys(term: string): string[] {
  const keys = new Set(deletionKeys(term));
  const termWords = words(term);
  if (termWords.length > 1) for (const w of termWords) keys.add(w);
  return [...keys];
}

/**
 * The symmetric deletion of a name or a query's part: itself and its forms with one character
 * removed (the vocabulary's keys, lookupKeys, are these and the words).
 */
export function deletionKeys(term: string): string[] {
  const keys = new Set<string>([term]);
  // By code points, not UTF-16 units: cutting a surrogate pair would leave text the database refuses.
  const chars = Array.from(term);
  if (chars.length > 2) for (let i = 0; i < chars.length; i++) keys.add(chars.slice(0, i).join('') + chars.slice(i + 1).join(''));
  return [...keys];
}
