/** Whether a facility is open at an instant, by its weekly schedule in the clinic's zone (src/modules/facilities/schedule.ts). */
import type { WeekSchedule } from '../../db/tables/agenda.js';
import { WEEKDAYS, minutesOf } from '../facilities/index.js';
import { localParts, localToUtc } from '../../lib/time-zone.js';

interface OpeningState {
  openNow: boolean;
  /** When the current opening ends (null when closed). */
  closesAt: string | null;
  /** The next opening that starts after `now` (within two weeks), or null. */
  nextOpening: string | null;
}

const LOOK_AHEAD_DAYS = 14;

export function openingState(schedule: WeekSchedule | null, tz: string, now: Date): OpeningState {
  const state: OpeningState = { openNow: false, closesAt: null, nextOpening: null };
  if (!schedule) return state;
  const today = localParts(now, tz);
  const first = Date.UTC(today.year, today.month - 1, today.day) - 86_400_000;
  for (let i = 0; i <= LOOK_AHEAD_DAYS + 1; i++) {
    const d = new Date(first + i * 86_400_000);
    for (const interval of schedule[WEEKDAYS[d.getUTCDay()]!] ?? []) {
      // Schedules are checked when written (scheduleIssues); one written around that is skipped, not fatal.
      if (typeof interval?.open !== 'string' || typeof interval?.close !== 'string') continue;
      const open = localToUtc(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), minutesOf(interval.open), tz);
      const close = localToUtc(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), minutesOf(interval.close), tz);
      if (open <= now && now < close) {
        state.openNow = true;
        state.closesAt = close.toISOString();
      } else if (open > now && state.nextOpening === null) {
        state.nextOpening = open.toISOString();
      }
    }
    if (state.nextOpening !== null) break;
  }
  return state;
}
