/**
 * The caps on what one API key may hold, written once. The holder is the call (`holderRef`):
 * it holds one slot at a time (a new hold replaces its old one, store.ts) for at most
 * HOLD_LIFE_SECONDS in all, so one caller, however it loops, keeps at most one slot and not for
 * long, even of a calendar with a single slot a day. Distinct holders of one key (a clinic's
 * concurrent calls on its one voice key) are never refused while free slots remain, up to the
 * key-wide count that bounds a runaway key. Holds sent without `holderRef` have the key itself
 * as their one holder, per calendar: one live slot of a calendar at a time.
 * createHold calls lifeRefusal, keyLimitRefusal, holderlessRefusal and lifeDeadline and nothing
 * else decides them, so a kind of hold exempt from them (a waitlist's offers, with their own
 * expiry) skips those calls. Each answers a HoldRefusal or null; the service turns a refusal
 * into its 409 once. The key-wide figure (HOLDS_PER_KEY) stays in schema.ts, where the API
 * documents it (schema.ts imports this file: the figure is passed in).
 */

/** A holder's holds (one `holderRef` of one key) live at most this long from its first hold; a replacement keeps the deadline. */
export const HOLD_LIFE_SECONDS = 15 * 60;

/** Why a key may not hold one more slot: the closed set of createHold's caps. */
export type HoldRefusal =
  | { kind: 'limit_key'; limit: number; nextExpiresAt: Date | null }
  | { kind: 'limit_calendar'; heldStart: Date; expiresAt: Date }
  | { kind: 'life_exceeded'; firstHeldAt: Date; deadline: Date };

/** The `holderRef` of the holds a key sends without one: the key is their holder, one per calendar. */
export function keyHolderRef(calendarId: string): string {
  return `key:${calendarId}`;
}

/** A new hold beyond the key's `limit` of live holds (`count`: the others, the replaced one left out), or null. */
export function keyLimitRefusal(count: number, limit: number, nextExpiresAt: Date | null): HoldRefusal | null {
  return count >= limit ? { kind: 'limit_key', limit, nextExpiresAt } : null;
}

/**
 * A hold without `holderRef` while the key's holder-less hold of the calendar lives at another
 * time, or null (`live`: that hold, replaced by this one unless refused). Without a holderRef the
 * server cannot tell a caller changing their mind from a second caller: replacing would take the
 * first caller's slot away unseen (its booking with `holdId` would then fail), so the second is
 * refused and told to book directly or to send a holderRef; the same time again renews it.
 */
export function holderlessRefusal(holderless: boolean, live: { start: Date; expiresAt: Date } | null, start: Date): HoldRefusal | null {
  if (!holderless || !live || live.start.getTime() === start.getTime()) return null;
  return { kind: 'limit_calendar', heldStart: live.start, expiresAt: live.expiresAt };
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
