/**
 * When a facility is open, by its weekly schedule in the clinic's zone (voice context's
 * `openNow`, `closesAt`, `nextOpening`): a real week with a lunch break, weekends, a day
 * that crosses midnight in UTC, and the spring daylight-saving change.
 */
import { describe, expect, it } from 'vitest';
import { openingState } from '../../../src/modules/voice/opening.js';
import type { WeekSchedule } from '../../../src/db/tables/agenda.js';

const WEEKDAY = [
  { open: '09:00', close: '13:00' },
  { open: '14:00', close: '19:00' },
];
const STUDIO: WeekSchedule = { mon: WEEKDAY, tue: WEEKDAY, wed: WEEKDAY, thu: WEEKDAY, fri: WEEKDAY, sat: [{ open: '09:00', close: '12:30' }] };
const ROME = 'Europe/Rome';

describe('openingState', () => {
  it('is open in the morning and says when the morning ends', () => {
    // Wednesday 4 March 2026, 10:15 in Rome (CET, UTC+1).
    expect(openingState(STUDIO, ROME, new Date('2026-03-04T09:15:00Z'))).toEqual({
      openNow: true,
      closesAt: '2026-03-04T12:00:00.000Z',
      nextOpening: '2026-03-04T13:00:00.000Z',
    });
  });

  it('is closed over lunch and opens again at 14:00 the same day', () => {
    expect(openingState(STUDIO, ROME, new Date('2026-03-04T12:30:00Z'))).toEqual({
      openNow: false,
      closesAt: null,
      nextOpening: '2026-03-04T13:00:00.000Z',
    });
  });

  it('at the closing minute is closed (the interval ends before its close)', () => {
    expect(openingState(STUDIO, ROME, new Date('2026-03-04T18:00:00Z'))).toMatchObject({ openNow: false, nextOpening: '2026-03-05T08:00:00.000Z' });
  });

  it('after Saturday noon opens again on Monday morning', () => {
    // Saturday 7 March, 13:00 in Rome: closed until Monday 9 March, 09:00.
    expect(openingState(STUDIO, ROME, new Date('2026-03-07T12:00:00Z'))).toEqual({
      openNow: false,
      closesAt: null,
      nextOpening: '2026-03-09T08:00:00.000Z',
    });
  });

  it('counts the opening in the clinic zone across the daylight-saving change', () => {
    // Saturday 28 March 2026 evening (CET); clocks go forward on Sunday 29: Monday 09:00 is CEST, UTC+2.
    expect(openingState(STUDIO, ROME, new Date('2026-03-28T19:00:00Z')).nextOpening).toBe('2026-03-30T07:00:00.000Z');
  });

  it('reads the local day, not the UTC day, when they differ', () => {
    // 23:30 UTC on Friday 6 March is already Saturday 00:30 in Rome: the next opening is Saturday 09:00.
    expect(openingState(STUDIO, ROME, new Date('2026-03-06T23:30:00Z')).nextOpening).toBe('2026-03-07T08:00:00.000Z');
    // In New York the same instant is still Friday 18:30, inside Friday's afternoon (14:00-19:00 local).
    expect(openingState(STUDIO, 'America/New_York', new Date('2026-03-06T23:30:00Z'))).toMatchObject({
      openNow: true,
      closesAt: '2026-03-07T00:00:00.000Z',
    });
  });

  it('has no opening without a schedule, or with one that is closed every day', () => {
    expect(openingState(null, ROME, new Date('2026-03-04T09:15:00Z'))).toEqual({ openNow: false, closesAt: null, nextOpening: null });
    expect(openingState({}, ROME, new Date('2026-03-04T09:15:00Z'))).toEqual({ openNow: false, closesAt: null, nextOpening: null });
  });
});
