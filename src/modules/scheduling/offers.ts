/**
 * Offering freed time to the waitlist, and what the person offered it answers. Every path that
 * frees an appointment's time (cancel, status change, reschedule, a move in the agenda) calls
 * offerFreedTime in its own transaction; a declined, withdrawn or lapsed offer passes its slot to
 * the next matching entry (offerSlot); accepting an offer books its slot. The entries, offers and
 * their SQL are src/modules/waitlist.
 */
import { agentOrigin, type Actor, type ActorLogger } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { recordEvent } from '../../events/record.js';
import { BLOCKING_EXCLUDED, type AppointmentRow, insertAppointment, withOverlapCheck } from '../appointments/index.js';
import { busyTimes, busyTimesQuery } from '../calendars/index.js';
import * as waitlist from '../waitlist/index.js';
import type { FreedSlot, OfferRow, WaitlistOfferView } from '../waitlist/index.js';
import { slotAppointment } from './booking.js';

type OfferContext = Pick<Actor, 'clinicId' | 'timeZone'> & { log?: ActorLogger };

function slotOf(offer: OfferRow): FreedSlot {
  return { calendarId: offer.calendar_id, doctorId: offer.doctor_id, chairId: offer.chair_id, start: offer.start_at, end: offer.end_at };
}

/**
 * Offers a slot to the first matching open entry (order of creation, window, doctor,
 * preferences), in the caller's transaction: the offer commits with whatever freed the slot,
 * so nobody can take the time in between. Nothing when the slot is taken otherwise or no entry
 * matches. An entry that a parallel transaction gave an offer first is skipped for the next.
 */
async function offerSlot(trx: Transaction, ctx: OfferContext, slot: FreedSlot, exceptPatientId: string | null): Promise<OfferRow | null> {
  const busy = busyTimesQuery(trx, ctx.clinicId, slot.doctorId ? [slot.doctorId] : [], slot.chairId ? [slot.chairId] : [], slot.start, slot.end);
  const candidates = (await waitlist.candidateEntries(trx, ctx.clinicId, slot, exceptPatientId, busy)).filter((e) =>
    waitlist.fitsPreferences(e, slot.start, ctx.timeZone),
  );
  if (candidates.length === 0) return null;
  for (const entry of candidates) {
    const outcome = await waitlist.insertOffer(trx, entry, slot);
    if (outcome.kind === 'entry_has_offer') continue;
    await recordEvent(trx, {
      log: ctx.log,
      clinicId: ctx.clinicId,
      type: 'waitlist.offer_created',
      facilityId: outcome.row.facility_id,
      data: waitlist.offerCreatedData(outcome.row, entry),
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
  for (const lapsed of await waitlist.lapsedOffers(db, batch)) {
    const passed = await db.transaction().execute(async (trx) => {
      const offer = await waitlist.claimLapsedOffer(trx, lapsed.id);
      if (!offer) return false;
      await waitlist.setOfferStatus(trx, offer.id, 'expired');
      await offerSlot(trx, { clinicId: lapsed.clinic_id, timeZone: lapsed.timezone }, slotOf(offer), null);
      return true;
    });
    if (passed) done += 1;
  }
  return done;
}

/** Whether any appointment, live hold or live offer (but `excludeOfferId`) takes the slot's doctor or chair. */
async function slotBusy(trx: Transaction, clinicId: string, slot: FreedSlot, excludeOfferId?: string): Promise<boolean> {
  const busy = await busyTimes(trx, clinicId, slot.doctorId ? [slot.doctorId] : [], slot.chairId ? [slot.chairId] : [], slot.start, slot.end, {
    excludeOfferId,
  });
  return busy.length > 0;
}

/** Takes an entry off the list; its live offer is withdrawn and its slot passes to the next entry. Removing it again does nothing. */
export async function removeEntry(db: Db, actor: Actor, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const entry = await waitlist.lockEntry(trx, actor, id);
    if (entry.status !== 'open') return;
    await waitlist.closeEntry(trx, entry.id, 'removed', null);
    const live = await waitlist.lockLiveOfferOf(trx, actor.clinicId, entry.id);
    if (live) {
      await waitlist.setOfferStatus(trx, live.id, 'withdrawn');
      await offerSlot(trx, actor, slotOf(live), null);
    }
  });
}

/**
 * Books the offered slot for the entry's person and closes the entry. Accepting again answers
 * the same offer. A lapsed offer still books while its slot is free (nobody else was offered it
 * or took it); otherwise `409 conflict` `offer_expired`.
 */
export async function acceptOffer(db: Db, actor: Actor, id: string): Promise<WaitlistOfferView> {
  return withOverlapCheck(() =>
    db.transaction().execute(async (trx) => {
      const { offer, entry } = await waitlist.lockOfferAndEntry(trx, actor, id);
      if (offer.status === 'accepted') return waitlist.offerView(offer, actor.timeZone);
      if (offer.status === 'declined') throw ApiError.conflict('offer_declined', {}, 'L’offerta è stata rifiutata.');
      if (offer.status === 'withdrawn') throw ApiError.conflict('offer_withdrawn', {}, 'L’offerta è stata ritirata: la persona non è più in lista.');
      if (entry.status !== 'open') throw ApiError.conflict('entry_closed', { entryStatus: entry.status }, 'La persona ha già prenotato da un’altra offerta.');
      const patientId = offer.patient_id ?? (await waitlist.convertedPatientOf(trx, actor.clinicId, offer.lead_id!));
      if (!patientId) throw ApiError.conflict('lead_not_converted', { leadId: offer.lead_id }, 'Il contatto va prima registrato come paziente (convertLead).');
      const slot = slotOf(offer);
      const live = offer.status === 'offered' && offer.expires_at.getTime() > Date.now();
      if (!live) {
        // The slot was kept for nobody since the offer lapsed: it books only if it is still free.
        await waitlist.lockSlotSchedules(trx, slot);
        if (await slotBusy(trx, actor.clinicId, slot, offer.id))
          throw ApiError.conflict('offer_expired', { expiresAt: offer.expires_at.toISOString() }, 'L’offerta è scaduta e l’orario non è più libero.');
      }
      const calendar = (await waitlist.visibleCalendar(trx, { clinicId: actor.clinicId, facilityIds: null }, offer.calendar_id))!;
      const appointment = await insertAppointment(
        trx,
        actor,
        slotAppointment(calendar, { start: slot.start.toISOString(), end: slot.end.toISOString(), doctorId: slot.doctorId, chairId: slot.chairId }, patientId, {
          origin: agentOrigin(actor) ?? 'api',
        }),
      );
      const accepted = await waitlist.setOfferStatus(trx, offer.id, 'accepted', appointment.id);
      await waitlist.closeEntry(trx, entry.id, 'booked', appointment.id);
      return waitlist.offerView({ ...accepted, patient_id: offer.patient_id, lead_id: offer.lead_id, channel: offer.channel }, actor.timeZone);
    }),
  );
}

/** The person says no: the slot passes at once to the next matching entry, or is freed. Declining again answers the same offer. */
export async function declineOffer(db: Db, actor: Actor, id: string): Promise<WaitlistOfferView> {
  return db.transaction().execute(async (trx) => {
    const { offer } = await waitlist.lockOfferAndEntry(trx, actor, id);
    if (offer.status === 'declined') return waitlist.offerView(offer, actor.timeZone);
    if (offer.status === 'accepted') throw ApiError.conflict('offer_accepted', { appointmentId: offer.appointment_id }, 'L’offerta è già stata accettata.');
    if (offer.status === 'expired') throw ApiError.conflict('offer_expired', {}, 'L’offerta è scaduta ed è passata ad altri.');
    if (offer.status === 'withdrawn') throw ApiError.conflict('offer_withdrawn', {}, 'L’offerta è stata ritirata.');
    const declined = await waitlist.setOfferStatus(trx, offer.id, 'declined');
    await offerSlot(trx, actor, slotOf(offer), null);
    return waitlist.offerView({ ...declined, patient_id: offer.patient_id, lead_id: offer.lead_id, channel: offer.channel }, actor.timeZone);
  });
}
