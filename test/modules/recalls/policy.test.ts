/** The pure rules of outbound work: when a patient may be called next, and which slots suit a waitlist entry. */
import { describe, expect, it } from 'vitest';
import { nextAttemptAt } from '../../../src/modules/recalls/policy.js';
import { fitsPreferences, partOfDay } from '../../../src/modules/waitlist/preferences.js';

const TZ = 'Europe/Rome';
const RULES = { maxAttemptsPerWeek: 2, quietStart: '20:00', quietEnd: '09:00' };

describe('nextAttemptAt', () => {
  it('is now outside the quiet hours and under the weekly limit', () => {
    const now = new Date('2026-03-03T10:00:00Z'); // 11:00 in Rome
    expect(nextAttemptAt(now, TZ, RULES, [new Date('2026-03-01T10:00:00Z')]).toISOString()).toBe(now.toISOString());
  });

  it('moves past quiet hours that span midnight, before and after it', () => {
    expect(nextAttemptAt(new Date('2026-03-03T20:30:00Z'), TZ, RULES, []).toISOString()).toBe('2026-03-04T08:00:00.000Z'); // 21:30 -> 09:00 next day
    expect(nextAttemptAt(new Date('2026-03-04T05:00:00Z'), TZ, RULES, []).toISOString()).toBe('2026-03-04T08:00:00.000Z'); // 06:00 -> 09:00
    expect(nextAttemptAt(new Date('2026-03-04T12:00:00Z'), TZ, { ...RULES, quietStart: '13:00', quietEnd: '14:30' }, []).toISOString()).toBe(
      '2026-03-04T13:30:00.000Z',
    );
  });

  it('waits for the oldest attempt filling the weekly limit to be 7 days old, then for the quiet hours to end', () => {
    const now = new Date('2026-03-05T10:00:00Z');
    const recent = [new Date('2026-03-04T10:00:00Z'), new Date('2026-03-01T21:00:00Z'), new Date('2026-03-02T10:00:00Z')];
    // The 2 newest of the week: 2026-03-02 10:00 and 03-04 10:00; the older one leaves the window on 03-09 at 10:00 UTC.
    expect(nextAttemptAt(now, TZ, RULES, recent).toISOString()).toBe('2026-03-09T10:00:00.000Z');
    expect(nextAttemptAt(now, TZ, { ...RULES, maxAttemptsPerWeek: 3 }, recent).toISOString()).toBe('2026-03-09T08:00:00.000Z'); // 03-08 21:00 UTC is quiet
  });
});

describe('fitsPreferences', () => {
  it('reads the slot in the clinic time zone; empty lists prefer nothing', () => {
    const tuesdayEvening = new Date('2026-03-03T17:30:00Z'); // 18:30 in Rome
    expect(partOfDay(12)).toBe('morning');
    expect(partOfDay(13)).toBe('afternoon');
    expect(partOfDay(18)).toBe('evening');
    expect(fitsPreferences({ days: [], parts_of_day: [] }, tuesdayEvening, TZ)).toBe(true);
    expect(fitsPreferences({ days: ['tue'], parts_of_day: ['evening'] }, tuesdayEvening, TZ)).toBe(true);
    expect(fitsPreferences({ days: ['tue'], parts_of_day: ['afternoon'] }, tuesdayEvening, TZ)).toBe(false);
    expect(fitsPreferences({ days: ['wed'], parts_of_day: [] }, tuesdayEvening, TZ)).toBe(false);
    // 23:30 UTC on Tuesday is Wednesday in Rome.
    expect(fitsPreferences({ days: ['wed'], parts_of_day: [] }, new Date('2026-03-03T23:30:00Z'), TZ)).toBe(true);
  });
});
