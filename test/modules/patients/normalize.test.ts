import { describe, expect, it } from 'vitest';
import { deletionKeys, lookupKeys, nameScore, normalizeName, normalizeTaxCode, osaDistance } from '../../../src/modules/patients/normalize.js';

describe('name normalization and distances', () => {
  it('normalizes case, accents, apostrophes and spaces', () => {
    expect(normalizeName('  NICOLÒ   D’Àngelo-Rossi ')).toBe('nicolo dangelo rossi');
    expect(normalizeTaxCode(' rss mra80a01 f205x ')).toBe('RSSMRA80A01F205X');
  });

  it('counts a transposition as one edit', () => {
    expect(osaDistance('rossi', 'rsosi')).toBe(1);
    expect(osaDistance('rossi', 'rosi')).toBe(1);
    expect(osaDistance('mario', 'maria')).toBe(1);
    expect(osaDistance('abc', 'cab')).toBe(2);
    expect(osaDistance('', 'abc')).toBe(3);
  });

  it('shares a deletion key between names one edit or one transposition apart', () => {
    const shares = (a: string, b: string) => deletionKeys(a).some((k) => deletionKeys(b).includes(k));
    expect(shares('rossi', 'rsosi')).toBe(true);
    expect(shares('rossi', 'rozsi')).toBe(true);
    expect(shares('rossi', 'rosssi')).toBe(true);
    expect(shares('rossi', 'bianchi')).toBe(false);
  });

  it('keys a name of the vocabulary by its deletion keys and, for several words, each word', () => {
    expect(lookupKeys('rossi')).toEqual(deletionKeys('rossi'));
    expect(lookupKeys('de')).toEqual(['de']);
    expect(lookupKeys('de luca')).toEqual([...deletionKeys('de luca'), 'de', 'luca']);
    // A word the name holds twice is one key.
    expect(lookupKeys('de de')).toEqual(['de de', 'e de', 'd de', 'dede', 'de e', 'de d', 'de']);
    // Characters outside the BMP are removed whole, never half a surrogate pair.
    expect(lookupKeys('li 😀')).toEqual(['li 😀', 'i 😀', 'l 😀', 'li😀', 'li ', 'li', '😀']);
  });

  it('scores the right person above a near-namesake, in either order', () => {
    expect(nameScore('mario rosi', 'mario', 'rossi')).toBeGreaterThan(nameScore('mario rosi', 'maria', 'rossi'));
    expect(nameScore('rossi mario', 'mario', 'rossi')).toBe(1);
    expect(nameScore('rossi', 'mario', 'rossi')).toBeLessThan(1);
    expect(nameScore('rossi', 'mario', 'rossi')).toBeGreaterThan(nameScore('rossi', 'mario', 'russo'));
  });
});

describe('a first or last name alone, cut otherwise than stored', () => {
  it('scores the surname written without or with an extra space like the surname itself', () => {
    // "d alessandro" is Caterina D'Alessandro's surname, not Alessandro Re.
    expect(nameScore('d alessandro', 'caterina', 'dalessandro')).toBeGreaterThan(nameScore('d alessandro', 'alessandro', 're'));
    expect(nameScore('deluca', 'mario', 'de luca')).toBeCloseTo(nameScore('de luca', 'mario', 'de luca'), 1);
    expect(nameScore('deluca', 'mario', 'de luca')).toBeLessThan(1);
  });
});

/** The scorer as first written, every comparison computed: nameScore must give the same number. */
function referenceNameScore(q: string, first: string, last: string): number {
  const similarity = (a: string, b: string) => {
    const longer = Math.max(a.length, b.length);
    return longer === 0 ? 1 : 1 - referenceOsa(a, b) / longer;
  };
  let whole = 0;
  for (const o of [`${first} ${last}`.trim(), `${last} ${first}`.trim()]) {
    whole = Math.max(whole, similarity(q, o), similarity(q.replace(/ /g, ''), o.replace(/ /g, '')));
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
      const s = similarity(t, n);
      if (s > best) {
        best = s;
        bestIndex = i;
      }
    });
    if (bestIndex >= 0) used.add(bestIndex);
    sum += best;
  }
  let partial = (sum / qTokens.length) * (0.8 + 0.15 * Math.min(1, used.size / nameTokens.length));
  for (const field of [first, last]) {
    const words = field.split(' ').filter(Boolean).length;
    if (words === 0 || words === nameTokens.length) continue;
    partial = Math.max(partial, similarity(q.replace(/ /g, ''), field.replace(/ /g, '')) * (0.8 + (0.15 * words) / nameTokens.length));
  }
  return Math.max(whole, partial);
}

/** Optimal string alignment distance by its textbook recurrence, a full matrix. */
function referenceOsa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

describe('the scorer skips only comparisons that cannot change the score', () => {
  // A small alphabet with spaces makes near names, swapped words and equal lengths common:
  // the cases where a skipped comparison would show.
  let seed = 20261125;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const text = (max: number) => Array.from({ length: Math.floor(random() * max) }, () => 'aabrs o'[Math.floor(random() * 7)]).join('');
  const name = (max: number) => normalizeName(text(max));

  it('osaDistance equals the textbook recurrence', () => {
    for (let k = 0; k < 20_000; k++) {
      const a = text(12);
      const b = text(12);
      expect(osaDistance(a, b), `${a}|${b}`).toBe(referenceOsa(a, b));
    }
    // Longer than the reused rows at first (they grow), and back.
    const long = 'maria grazia '.repeat(12);
    expect(osaDistance(long, long.slice(1))).toBe(1);
    expect(osaDistance('rossi', 'rsosi')).toBe(1);
  });

  it('nameScore equals the scorer that computes every comparison', () => {
    for (let k = 0; k < 20_000; k++) {
      const [q, first, last] = [name(14), name(12), name(12)];
      expect(nameScore(q, first, last), `${q}|${first}|${last}`).toBe(referenceNameScore(q, first, last));
    }
    const cases: Array<[string, string, string]> = [
      ['rossi', 'mario', 'rossi'],
      ['mario rosi', 'maria', 'rossi'],
      ['d alessandro', 'caterina', 'dalessandro'],
      ['deluca', 'mario', 'de luca'],
      ['de luca', 'maria rosa', 'de luca'],
      ['gian luca', 'gianluca', 'esposito'],
      ['esposito gianluca', 'gian luca', 'esposito'],
      ['maria grazia rossi', 'maria grazia', 'rossi de luca'],
      // Other scripts and characters outside the BMP, as normalizeName leaves them.
      [normalizeName('Lǐ Xiǎolóng'), normalizeName('Xiǎolóng'), normalizeName('Lǐ')],
      ['李 小龙', '小龙', '李'],
      ['αλεξανδρος rossi', 'αλέξανδρος', 'rossi'],
      ['maria 😀', 'maria', 'rossi 😀'],
    ];
    for (const [q, first, last] of cases) expect(nameScore(q, first, last)).toBe(referenceNameScore(q, first, last));
  });
});
