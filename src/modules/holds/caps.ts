/**
 * The caps on what one API key may hold (issue 33), written once: a share of one calendar's
 * slots per window, and a holder's total life. createHold calls assertLifeLeft,
 * assertCalendarShare and lifeDeadline and nothing else decides them, so a kind of hold exempt
 * from them (a waitlist's offers, with their own expiry) skips those three calls.
 * The key-wide count (HOLDS_PER_KEY) stays in schema.ts, where the API documents it.
 */
import { ApiError } from '../../core/errors.js';
import type { Slot, Window } from '../calendars/service.js';
import { localParts, localToUtc } from '../calendars/timezone.js';

/** A holder's holds (one `holderRef` of one key) live at most this long from its first hold; a replacement keeps the deadline. */
export const HOLD_LIFE_SECONDS = 15 * 60;
/** A key holds at most 1/CALENDAR_SHARE_DIVISOR of a calendar's slots of a window, never fewer than one. */
export const CALENDAR_SHARE_DIVISOR = 3;

/**
 * The window of the calendar share: the clinic-local day the slot starts in (a caller asks for
 * a day). Its slots are those availability lists for that day from now (notice and horizon).
 */
export function shareWindow(tz: string, start: Date): Window {
  const d = localParts(start, tz);
  return { from: localToUtc(d.year, d.month, d.day, 0, tz), to: localToUtc(d.year, d.month, d.day + 1, 0, tz) };
}

/** How many slots of a window with `slots` slots one key may hold. */
export function calendarShare(slots: number): number {
  return Math.max(1, Math.floor(slots / CALENDAR_SHARE_DIVISOR));
}

/**
 * Refuses a new hold beyond the key's share of the calendar in the window. `free`: the window's
 * free slots (the new one among them); `held`: the starts (ms) of the key's live holds of the
 * calendar in the window, the one being replaced left out. The window's slots are the free ones
 * and the ones the key holds, so a key's own holds do not shrink its share.
 */
export function assertCalendarShare(free: readonly Slot[], held: readonly number[], window: Window): void {
  const slots = new Set(free.map((s) => Date.parse(s.start)));
  for (const start of held) slots.add(start);
  const limit = calendarShare(slots.size);
  if (held.length < limit) return;
  throw ApiError.conflict(
    'hold_limit_calendar',
    { limit, windowStart: window.from.toISOString(), windowEnd: window.to.toISOString() },
    `Questa chiave tiene già ${held.length} dei ${slots.size} orari di questo calendario in questo giorno: rilasciane uno o prenota.`,
  );
}

/** When the holds of a holder first held at `firstHeldAt` lapse for good. */
export function lifeDeadline(firstHeldAt: Date): Date {
  return new Date(firstHeldAt.getTime() + HOLD_LIFE_SECONDS * 1000);
}

/**
 * Refuses to renew a holder's hold once its total life is over (`firstHeldAt`: when the holder
 * first held, carried by the unused hold it replaces unless that one lapsed a whole life ago,
 * so its slot was free for others at least as long as it was held; null for a new holder;
 * `now`: the database's clock).
 */
export function assertLifeLeft(firstHeldAt: Date | null, now: Date): void {
  if (!firstHeldAt || lifeDeadline(firstHeldAt).getTime() > now.getTime()) return;
  throw ApiError.conflict(
    'hold_life_exceeded',
    { lifeSeconds: HOLD_LIFE_SECONDS, firstHeldAt: firstHeldAt.toISOString(), deadline: lifeDeadline(firstHeldAt).toISOString() },
    `Questa chiamata tiene orari da più di ${HOLD_LIFE_SECONDS / 60} minuti: prenota l’orario senza tenerlo oppure rilascia la prenotazione temporanea.`,
  );
}
