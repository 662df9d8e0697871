import { describe, expect, it } from 'vitest';
import type { CalendarRow } from '../../src/modules/calendars/service.js';
import { bookableWindow, gridSlots } from '../../src/modules/calendars/service.js';
import { localParts, localToUtc } from '../../src/modules/calendars/timezone.js';

describe('clinic timezone arithmetic', () => {
  it('converts local wall-clock times to UTC across daylight-saving changes', () => {
    expect(localToUtc(2026, 1, 15, 9 * 60, 'Europe/Rome').toISOString()).toBe('2026-01-15T08:00:00.000Z');
    expect(localToUtc(2026, 7, 15, 9 * 60, 'Europe/Rome').toISOString()).toBe('2026-07-15T07:00:00.000Z');
    // The day the clocks go forward in Rome (29 March 2026, 02:00 -> 03:00).
    expect(localToUtc(2026, 3, 29, 9 * 60, 'Europe/Rome').toISOString()).toBe('2026-03-29T07:00:00.000Z');
    expect(localToUtc(2026, 11, 1, 9 * 60, 'America/New_York').toISOString()).toBe('2026-11-01T14:00:00.000Z');
    expect(localToUtc(2026, 10, 31, 9 * 60, 'America/New_York').toISOString()).toBe('2026-10-31T13:00:00.000Z');
    expect(localParts(new Date('2026-01-15T23:30:00Z'), 'Europe/Rome')).toMatchObject({ year: 2026, month: 1, day: 16, hour: 0, minute: 30 });
  });

  it('lays the slot grid on local working hours and clips the window to notice and horizon', () => {
    const cal = {
      slot_minutes: 45,
      working_hours: { mon: [{ open: '09:00', close: '11:00' }] },
      min_notice_minutes: 60,
      horizon_days: 2,
      active: true,
    } as unknown as CalendarRow;
    // Monday 2 March 2026 in New York (UTC-5).
    const slots = gridSlots(cal, 'America/New_York', { from: new Date('2026-03-02T00:00:00Z'), to: new Date('2026-03-03T12:00:00Z') });
    expect(slots.map((s) => s.start.toISOString())).toEqual(['2026-03-02T14:00:00.000Z', '2026-03-02T14:45:00.000Z']);
    const now = new Date('2026-03-02T10:00:00Z');
    expect(bookableWindow(cal, new Date('2026-03-02T09:00:00Z'), new Date('2026-03-02T12:00:00Z'), now)).toEqual({
      from: new Date('2026-03-02T11:00:00Z'),
      to: new Date('2026-03-02T12:00:00Z'),
    });
    expect(bookableWindow(cal, new Date('2026-03-05T00:00:00Z'), new Date('2026-03-06T00:00:00Z'), now)).toBeNull();
  });
});
