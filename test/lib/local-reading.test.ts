/**
 * The clinic-local reading every answer gives beside a time (src/lib/local-reading.ts):
 * its words are Intl's it-IT ones, written out, and its local parts are read from format()'s
 * text; both compared with Intl itself over every quarter hour of two years in three zones,
 * the clock changes included.
 */
import { describe, expect, it } from 'vitest';
import { localReading, slotWords } from '../../src/lib/local-reading.js';
import { localParts } from '../../src/lib/time-zone.js';
import { intlReading } from './reading.js';

describe('localReading', () => {
  it('says every local day and hour as Intl does, in Rome, New York and Kathmandu (+05:45)', () => {
    for (const tz of ['Europe/Rome', 'America/New_York', 'Asia/Kathmandu']) {
      const wrong: string[] = [];
      for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2028, 0, 1); t += 97 * 60_000) {
        const got = localReading(new Date(t), tz);
        const want = intlReading(new Date(t), tz);
        if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`${new Date(t).toISOString()} ${tz}: ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
      }
      expect(wrong.slice(0, 5)).toEqual([]);
    }
  });

  it('reads the clock changes of Rome: 01:59 then 03:00 in spring, 02:30 twice in autumn', () => {
    expect(localReading(new Date('2027-03-28T00:59:00Z'), 'Europe/Rome').localTime).toBe('01:59');
    expect(localReading(new Date('2027-03-28T01:00:00Z'), 'Europe/Rome')).toEqual({
      localDate: '2027-03-28',
      localTime: '03:00',
      label: 'domenica 28 marzo alle 3:00',
    });
    expect(localReading(new Date('2027-10-31T00:30:00Z'), 'Europe/Rome').localTime).toBe('02:30');
    expect(localReading(new Date('2027-10-31T01:30:00Z'), 'Europe/Rome').localTime).toBe('02:30');
    expect(slotWords(new Date('2027-10-30T23:00:00Z'), 'Europe/Rome')).toMatchObject({ label: 'domenica 31 ottobre all’1:00', partOfDay: 'morning' });
  });

  it('localParts reads a year past 9999 too (format()’s text then has five digits: the parts are read instead)', () => {
    expect(localParts(new Date('+010000-01-01T04:30:00.000Z'), 'Europe/Rome')).toMatchObject({ year: 10000, month: 1, day: 1, hour: 5, minute: 30 });
  });
});
