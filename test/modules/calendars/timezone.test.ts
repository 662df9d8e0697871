import { describe, expect, it } from 'vitest';
import type { CalendarRow } from '../../../src/modules/calendars/service.js';
import { bookableWindow, gridSlots } from '../../../src/modules/calendars/service.js';
import { localParts, localToUtc } from '../../../src/lib/time-zone.js';

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

describe('the slot grid', () => {
  /** The grid computed the plain way, every slot converted on its own: what the faster grid must equal. */
  function gridSlotsSlot(cal: CalendarRow, tz: string, window: { from: Date; to: Date }): string[] {
    const out: number[] = [];
    const first = localParts(new Date(window.from.getTime() - 86_400_000), tz);
    const last = localParts(new Date(window.to.getTime() + 86_400_000), tz);
    const names = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
    const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
    for (let day = Date.UTC(first.year, first.month - 1, first.day); day <= Date.UTC(last.year, last.month - 1, last.day); day += 86_400_000) {
      const d = new Date(day);
      for (const interval of (cal.working_hours as Record<string, Array<{ open: string; close: string }>>)[names[d.getUTCDay()]!] ?? []) {
        for (let m = minutes(interval.open); m + cal.slot_minutes <= minutes(interval.close); m += cal.slot_minutes) {
          const start = localToUtc(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), m, tz).getTime();
          if (start >= window.from.getTime() && start < window.to.getTime()) out.push(start);
        }
      }
    }
    return out.sort((a, b) => a - b).map((t) => new Date(t).toISOString());
  }

  it('is the same as converting every slot, across changes of offset at night, at midnight and by half an hour', () => {
    const allDay = [{ open: '00:00', close: '24:00' }];
    const split = [
      { open: '01:30', close: '03:30' },
      { open: '08:00', close: '13:00' },
      { open: '14:00', close: '24:00' },
    ];
    const zones = ['Europe/Rome', 'America/New_York', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Kolkata', 'UTC'];
    for (const tz of zones) {
      for (const [slot, hours] of [
        [60, allDay],
        [45, split],
      ] as const) {
        const cal = {
          slot_minutes: slot,
          working_hours: { mon: hours, tue: hours, wed: hours, thu: hours, fri: hours, sat: hours, sun: hours },
        } as unknown as CalendarRow;
        // A whole year in windows of 5 days: every change of offset of these zones falls in one.
        for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 5 * 86_400_000) {
          const window = { from: new Date(t + 7 * 60_000), to: new Date(t + 5 * 86_400_000) };
          expect(gridSlots(cal, tz, window).map((s) => s.start.toISOString())).toEqual(gridSlotsSlot(cal, tz, window));
        }
      }
    }
  });
});
