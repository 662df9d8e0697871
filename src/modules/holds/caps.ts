/**
 * The caps on what one API key may hold (issue 33), written once: a share of one calendar's
 * slots per window, and a holder's total life, and the key-wide count. createHold calls
 * lifeRefusal, keyLimitRefusal, shareRefusal and lifeDeadline and nothing else decides them, so
 * a kind of hold exempt from them (a waitlist's offers, with their own expiry) skips those
 * calls. Each answers a HoldRefusal or null; the service turns a refusal into its 409 once.
 * The key-wide cap's figure (HOLDS_PER_KEY) stays in schema.ts, where the API documents it
 * (schema.ts imports this file: the figure is passed in).
 */
import type { Slot, Window } from '../calendars/service.js';
import { localParts, localToUtc } from '../calendars/timezone.js';

/** A holder's holds (one `holderRef` of one key) live at most this long from its first hold; a replacement keeps the deadline. */
export const HOLD_LIFE_SECONDS = 15 * 60;
/** A key holds at most 1/CALENDAR_SHARE_DIVISOR of a calendar's slots of a window, never fewer than one. */
export const CALENDAR_SHARE_DIVISOR = 3;

/** Why a key may not hold one more slot: the closed set of createHold's caps. */
export type HoldRefusal =
  | { kind: 'limit_key'; limit: number; nextExpiresAt: Date | null }
  | { kind: 'limit_calendar'; limit: number; held: number; slots: number; window: Window }
  | { kind: 'life_exceeded'; firstHeldAt: Date; deadline: Date };

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
 * A new hold beyond the key's share of the calendar in the window, or null. `free`: the window's
 * free slots (the new one among them); `held`: the starts (ms) of the key's live holds of the
 * calendar in the window, the one being replaced left out. The window's slots are the free ones
 * and the ones the key holds, so a key's own holds do not shrink its share.
 */
export function shareRefusal(free: readonly Slot[], held: readonly number[], window: Window): HoldRefusal | null {
  const slots = new Set(free.map((s) => Date.parse(s.start)));
  for (const start of held) slots.add(start);
  const limit = calendarShare(slots.size);
  if (held.length < limit) return null;
  return { kind: 'limit_calendar', limit, held: held.length, slots: slots.size, window };
}

/** A new hold beyond the key's `limit` of live holds (`count`: the others, the replaced one left out), or null. */
export function keyLimitRefusal(count: number, limit: number, nextExpiresAt: Date | null): HoldRefusal | null {
  return count >= limit ? { kind: 'limit_key', limit, nextExpiresAt } : null;
}

/** When the holds of a holder first held at `firstHeldAt` lapse for good. */
export function lifeDeadline(firstHeldAt: Date): Date {
  return new Date(firstHeldAt.getTime() + HOLD_LIFE_SECONDS * 1000);
}

/**
 * A renewal of a holder's hold once its total life is over, or null (`firstHeldAt`: when the
 * holder first held, carried by the unused hold it replaces unless that one lapsed a whole life
 * ago, so its slot was free for others at least as long as it was held; null for a new holder;
 * `now`: the database's clock).
 */
export function lifeRefusal(firstHeldAt: Date | null, now: Date): HoldRefusal | null {
  if (!firstHeldAt || lifeDeadline(firstHeldAt).getTime() > now.getTime()) return null;
  return { kind: 'life_exceeded', firstHeldAt, deadline: lifeDeadline(firstHeldAt) };
}
