/**
 * Offering freed time to the waitlist: the part of the waitlist that every path
 * freeing an appointment's time calls in its own transaction (appointments' cancel, status
 * change, reschedule) and the expiry job that passes a lapsed offer on. It imports nothing of
 * the appointments' services, so they can call it without an import cycle; accepting an offer,
 * which books, is in service.ts.
 */
import type { Actor, ActorLogger } from '../../core/actor.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { recordEvent } from '../../events/record.js';
import { BLOCKING_EXCLUDED, type AppointmentRow } from '../appointments/model.js';
import { offerCreatedData } from './events.js';
import { fitsPreferences } from './preferences.js';
import * as store from './store.js';
import type { FreedSlot, OfferRow } from './store.js';

export type OfferContext = Pick<Actor, 'clinicId' | 'timeZone'> & { log?: ActorLogger };

export function slotOf(offer: OfferRow): FreedSlot {
  return { calendarId: offer.calendar_id, doctorId: offer.doctor_id, chairId: offer.chair_id, start: offer.start_at, end: offer.end_at };
}

/**
 * Offers a slot to the first matching open entry (order of creation, window, doctor,
 * preferences), in the caller's transaction: the offer commits with whatever freed the slot,
 * so nobody can take the time in between. Nothing when the slot is taken otherwise or no entry
 * matches. An entry that a parallel transaction gave an offer first is skipped for the next.
 */
export async function offerSlot(trx: Transaction, ctx: OfferContext, slot: FreedSlot, exceptPatientId: string | null): Promise<OfferRow | null> {
  const candidates = (await store.candidateEntries(trx, ctx.clinicId, slot, exceptPatientId)).filter((e) => fitsPreferences(e, slot.start, ctx.timeZone));
  if (candidates.length === 0) return null;
  for (const entry of candidates) {
    const outcome = await store.insertOffer(trx, entry, slot);
    if (outcome.kind === 'entry_has_offer') continue;
    await recordEvent(trx, {
      log: ctx.log,
      clinicId: ctx.clinicId,
      type: 'waitlist.offer_created',
      facilityId: outcome.row.facility_id,
      data: offerCreatedData(outcome.row, entry),
    });
    return outcome.row;
  }
  return null;
}

const holdsTime = (status: string) => !(BLOCKING_EXCLUDED as readonly string[]).includes(status);

/**
 * The hook of every path that changes an appointment (cancel, status change, reschedule, move
 * in the agenda): when the change frees time the appointment held on a calendar, that time is
 * offered to the waitlist in the same transaction. A move that overlaps its old time frees
 * nothing there (the slot is then busy with the appointment itself).
 */
export async function offerFreedTime(trx: Transaction, ctx: OfferContext, before: AppointmentRow, after: AppointmentRow): Promise<void> {
  if (!before.calendar_id || !holdsTime(before.status)) return;
  if (before.start_at.getTime() <= Date.now()) return;
  const moved =
    before.start_at.getTime() !== after.start_at.getTime() ||
    before.end_at.getTime() !== after.end_at.getTime() ||
    before.doctor_id !== after.doctor_id ||
    before.chair_id !== after.chair_id;
  if (holdsTime(after.status) && !moved) return;
  const slot: FreedSlot = { calendarId: before.calendar_id, doctorId: before.doctor_id, chairId: before.chair_id, start: before.start_at, end: before.end_at };
  await offerSlot(trx, ctx, slot, before.patient_id);
}

/** The expiry job: each lapsed live offer becomes `expired` and its slot passes to the next matching entry. */
export async function expireOffers(db: Db, batch = 100): Promise<number> {
  let done = 0;
  for (const lapsed of await store.lapsedOffers(db, batch)) {
    const passed = await db.transaction().execute(async (trx) => {
      const offer = await store.claimLapsedOffer(trx, lapsed.id);
      if (!offer) return false;
      await store.setOfferStatus(trx, offer.id, 'expired');
      await offerSlot(trx, { clinicId: lapsed.clinic_id, timeZone: lapsed.timezone }, slotOf(offer), null);
      return true;
    });
    if (passed) done += 1;
  }
  return done;
}
