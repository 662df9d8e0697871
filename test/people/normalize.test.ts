import { describe, expect, it } from 'vitest';
import { deletionKeys, nameScore, normalizeName, normalizeTaxCode, osaDistance } from '../../src/modules/patients/normalize.js';

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
