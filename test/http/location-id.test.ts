/**
 * The `id` read from a creation's answer for its `Location` (src/http/method-not-allowed.ts):
 * read at the head of the body when it is there, parsed otherwise, and always the id JSON.parse
 * reads, whatever the id holds (quotes, backslashes, unicode) and wherever it stands.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idOf } from '../../src/http/method-not-allowed.js';

describe('idOf', () => {
  it('reads the id JSON.parse reads, first or not, of any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.boolean(), fc.dictionary(fc.string(), fc.jsonValue()), (id, first, rest) => {
        const { id: _drop, ...others } = rest;
        const body = JSON.stringify(first ? { id, ...others } : { ...others, id });
        expect(idOf(body)).toBe(id);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads no id from a body without a string id, or from no JSON', () => {
    expect(idOf('{"id":5,"name":"x"}')).toBeUndefined();
    expect(idOf('{"name":"x"}')).toBeUndefined();
    expect(idOf('[1,2]')).toBeUndefined();
    expect(idOf('{"id":"unterminated')).toBeUndefined();
    expect(idOf('not json')).toBeUndefined();
  });
});
