/**
 * Taking and releasing a slot hold (src/modules/holds/README.md): a key keeps a free slot for a
 * caller while the agent confirms it, so nobody else can book or hold that time until the hold
 * is booked, released or lapses. The caps are holds/caps.ts, the SQL holds/store.ts.
 */
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { findScoped } from '../../db/scoped.js';
import { assertBookableBy, type SlotOptions } from '../calendars/index.js';
import {
  HOLD_LIFE_SECONDS,
  holderlessRefusal,
  keyHolderRef,
  keyLimitRefusal,
  lifeDeadline,
  lifeRefusal,
  type HoldRefusal,
  HOLD_TTL,
  HOLDS_PER_KEY,
  type HoldView,
  type NewHold,
  holdView,
  deleteUnusedHold,
  insertHold,
  replaceAndCount,
} from '../holds/index.js';
import { answeringNoSlot, isNoSlot, takeSlot, unlessNoSlot, type NoSlot } from './slots.js';

/** Only an API key holds slots: the holds are counted per key. */
function keyOf(actor: Actor): string {
  if (!actor.keyId) throw ApiError.forbidden('not_bookable_by_agent');
  return actor.keyId;
}

/** The 409 of a cap refused (holds/caps.ts), once for each kind. */
function refused(r: HoldRefusal): ApiError {
  switch (r.kind) {
    case 'limit_key':
      return ApiError.conflict(
        'hold_limit',
        { limit: r.limit, nextExpiresAt: r.nextExpiresAt ? r.nextExpiresAt.toISOString() : null },
        `Questa chiave tiene già ${r.limit} orari: rilasciane uno o attendi che scada.`,
      );
    case 'limit_calendar':
      return ApiError.conflict(
        'hold_limit_calendar',
        { limit: 1, heldStart: r.heldStart.toISOString(), expiresAt: r.expiresAt.toISOString() },
        'Questa chiave tiene già un orario di questo calendario senza holderRef: prenota direttamente, rilascialo oppure indica holderRef (l’id della chiamata).',
      );
    case 'life_exceeded':
      return ApiError.conflict(
        'hold_life_exceeded',
        { lifeSeconds: HOLD_LIFE_SECONDS, firstHeldAt: r.firstHeldAt.toISOString(), deadline: r.deadline.toISOString() },
        `Questa chiamata tiene orari da più di ${HOLD_LIFE_SECONDS / 60} minuti: prenota l’orario senza tenerlo oppure rilascia la prenotazione temporanea.`,
      );
  }
}

/** One attempt at a hold, in `trx` (see createHold); a NoSlot when its slot is not to be had. */
async function holdIn(trx: Transaction, actor: Actor, keyId: string, calendarId: string, input: NewHold): Promise<HoldView | NoSlot> {
  const start = new Date(input.start);
  const opts: SlotOptions = { doctorId: input.doctorId?.toLowerCase() };
  const cal = await findScoped(trx, 'calendars', actor, calendarId);
  if (opts.doctorId && !cal.doctor_ids.includes(opts.doctorId)) {
    throw ApiError.invalid('body', [{ path: 'doctorId', message: 'non è un medico di questo calendario' }]);
  }
  assertBookableBy(cal, actor);
  // The same call holding again replaces its hold; the key's other live holds are counted under
  // the key's lock, with what the caps read (holds/store.ts, holds/caps.ts).
  const holderRef = input.holderRef ?? keyHolderRef(cal.id);
  const live = await replaceAndCount(trx, { clinicId: actor.clinicId, keyId, holderRef });
  const early =
    lifeRefusal(live.firstHeldAt, live.now) ??
    keyLimitRefusal(live.count, HOLDS_PER_KEY, live.nextExpiresAt) ??
    holderlessRefusal(input.holderRef === undefined, live.replaced, start);
  if (early) throw refused(early);
  // After the key's lock, which no schedule lock holder waits for: no cycle of waits.
  const taken = await takeSlot(trx, actor.timeZone, { cal, start, opts });
  if (isNoSlot(taken)) return taken;
  const row = await insertHold(trx, {
    clinicId: actor.clinicId,
    keyId,
    holderRef,
    cal,
    slot: taken.slot,
    ttlSeconds: input.ttlSeconds ?? HOLD_TTL.default,
    // A replacement keeps the first hold's deadline.
    deadline: lifeDeadline(live.firstHeldAt ?? live.now),
    firstHeldAt: live.firstHeldAt,
  });
  return holdView(row, actor.timeZone);
}

/** Holds the free slot starting at `input.start` of the calendar for `input.holderRef` (or, without one, for the key on this calendar). */
export async function createHold(db: Db, actor: Actor, calendarId: string, input: NewHold): Promise<HoldView> {
  const keyId = keyOf(actor);
  return answeringNoSlot(db, actor, () => db.transaction().execute((trx) => unlessNoSlot(holdIn(trx, actor, keyId, calendarId, input))));
}

/**
 * Releases a hold of this key: its time is free at once. A hold of another key, of another
 * clinic or of a facility the key does not see is 404; a hold already used by a booking is
 * left as it is (the appointment holds the time).
 */
export async function releaseHold(db: Db, actor: Actor, id: string): Promise<void> {
  const keyId = keyOf(actor);
  await db.transaction().execute(async (trx) => {
    const hold = await findScoped(trx, 'slot_holds', actor, id);
    if (hold.api_key_id !== keyId) throw ApiError.notFound();
    await deleteUnusedHold(trx, hold);
  });
}
