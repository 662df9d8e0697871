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
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const n = b.length;
  // Three rows reused across calls (a search computes thousands of distances): no garbage.
  if (rows[0].length <= n) rows = [new Int32Array(2 * n + 2), new Int32Array(2 * n + 2), new Int32Array(2 * n + 2)];
  let [prev2, prev, cur] = rows;
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ai = a.charCodeAt(i - 1);
    const aPrev = i > 1 ? a.charCodeAt(i - 2) : -1;
    for (let j = 1; j <= n; j++) {
      const bj = b.charCodeAt(j - 1);
      const cost = ai === bj ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && aPrev === bj) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
    }
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n]!;
}
let rows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/** 1 for equal strings, 0 for nothing in common: 1 - distance / longer length. */
export function editSimilarity(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  return 1 - osaDistance(a, b) / longer;
}

/**
 * How well a name query matches a patient's first and last name, in [0, 1]:
 * - the whole query against "first last", "last first" and both without spaces (swapped
 *   names, typos, transpositions, missing or extra accents after normalization);
 * - token by token, for a part of a name ("rossi"): each query token against its best
 *   name token, lowered a little when the query names fewer tokens than the patient has,
 *   so that the complete match of a namesake ranks first;
 * - the first or the last name alone without spaces ("d alessandro", "deluca"), lowered the
 *   same way.
 */
export function nameScore(query: string, first: string, last: string): number {
  const q = query;
  const orders = [`${first} ${last}`.trim(), `${last} ${first}`.trim()];
  let whole = 0;
  for (const o of orders) {
    whole = Math.max(whole, editSimilarity(q, o), editSimilarity(q.replace(/ /g, ''), o.replace(/ /g, '')));
  }
  const qTokens = q.split(' ').filter(Boolean);
  const nameTokens = `${first} ${last}`.split(' ').filter(Boolean);
  if (qTokens.length === 0 || nameTokens.length === 0) return whole;
  let sum = 0;
  const used = new Set<number>();
  for (const t of qTokens) {
    let best = 0;
    let bestIndex = -1;
    nameTokens.forEach((n, i) => {
      if (used.has(i)) return;
      const s = editSimilarity(t, n);
      if (s > best) {
        best = s;
        bestIndex = i;
      }
    });
    if (bestIndex >= 0) used.add(bestIndex);
    sum += best;
  }
  const tokenwise = sum / qTokens.length;
  const coverage = Math.min(1, used.size / nameTokens.length);
  let partial = tokenwise * (0.8 + 0.15 * coverage);
  // The first or the last name alone, cut otherwise than it is stored ("d alessandro" for
  // "dalessandro", "deluca" for "de luca"): compared without spaces, weighed like a part.
  const joined = q.replace(/ /g, '');
  for (const field of [first, last]) {
    const words = field.split(' ').filter(Boolean).length;
    if (words === 0 || words === nameTokens.length) continue;
    partial = Math.max(partial, editSimilarity(joined, field.replace(/ /g, '')) * (0.8 + (0.15 * words) / nameTokens.length));
  }
  return Math.max(whole, partial);
}

/**
 * The lookup keys of a name in the clinic's vocabulary (patient_name_keys): the name, every
 * form of it with one character removed (symmetric deletion: two names within one edit or
 * one transposition share a key), and, for a name of several words, each word ("grazia"
 * reaches "maria grazia").
 */
export function lookupKeys(term: string): string[] {
  const keys = new Set<string>([term]);
  // By code points, not UTF-16 units: cutting a surrogate pair would leave text the database refuses.
  const chars = Array.from(term);
  if (chars.length > 2) for (let i = 0; i < chars.length; i++) keys.add(chars.slice(0, i).join('') + chars.slice(i + 1).join(''));
  const words = term.split(' ').filter(Boolean);
  if (words.length > 1) for (const w of words) keys.add(w);
  return [...keys];
}

/** The query side of the symmetric deletion: the part and its forms with one character removed. */
export function deletionKeys(term: string): string[] {
  const keys = new Set<string>([term]);
  const chars = Array.from(term);
  if (chars.length > 2) for (let i = 0; i < chars.length; i++) keys.add(chars.slice(0, i).join('') + chars.slice(i + 1).join(''));
  return [...keys];
}
