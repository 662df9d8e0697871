/**
 * The waitlist (README.md beside this file): people waiting for a calendar's slot, and the
 * offers of freed slots made to them one entry at a time. Every caller (REST, back office, the
 * expiry job, agent tools) goes through these functions; the SQL is in store.ts.
 */
import { agentOrigin, type Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { checkRefs } from '../../db/scoped.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { insertAppointment, withOverlapCheck } from '../appointments/service.js';
import { localReading } from '../../lib/local-reading.js';
import { slotAppointment } from '../calendars/service.js';
import type { NewWaitlistEntry, OfferListQuery, WaitlistEntryView, WaitlistListQuery, WaitlistOfferView, WaitlistSettings } from './schema.js';
import * as store from './store.js';
import { entryBodyIssues } from './checks.js';
import { offerSlot, slotOf } from './offers.js';
import type { EntryRow, OfferWithEntry } from './store.js';

/** What offering a slot needs of the one who freed it: the clinic, its time zone, a logger. */

/** An entry as the API answers it, its window read in the clinic's zone `tz`. */
export function entryView(row: EntryRow, tz: string): WaitlistEntryView {
  return {
    id: row.id,
    calendarId: row.calendar_id,
    facilityId: row.facility_id,
    doctorId: row.doctor_id,
    patientId: row.patient_id,
    leadId: row.lead_id,
    earliest: row.earliest.toISOString(),
    latest: row.latest.toISOString(),
    days: row.days as WaitlistEntryView['days'],
    partsOfDay: row.parts_of_day as WaitlistEntryView['partsOfDay'],
    note: row.note,
    channel: row.channel as WaitlistEntryView['channel'],
    status: row.status as WaitlistEntryView['status'],
    appointmentId: row.appointment_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    earliestLocal: localReading(row.earliest, tz),
    latestLocal: localReading(row.latest, tz),
  };
}

/** An offer as the API answers it, its slot's start read in the clinic's zone `tz`. */
export function offerView(row: OfferWithEntry, tz: string): WaitlistOfferView {
  return {
    id: row.id,
    entryId: row.entry_id,
    calendarId: row.calendar_id,
    facilityId: row.facility_id,
    doctorId: row.doctor_id,
    chairId: row.chair_id,
    patientId: row.patient_id,
    leadId: row.lead_id,
    channel: row.channel as WaitlistOfferView['channel'],
    start: row.start_at.toISOString(),
    end: row.end_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    status: row.status as WaitlistOfferView['status'],
    appointmentId: row.appointment_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...localReading(row.start_at, tz),
  };
}

/** Puts a patient or a lead on a calendar's waitlist; one open entry per person and calendar. */
export async function createEntry(db: Db, actor: Actor, input: NewWaitlistEntry): Promise<EntryRow> {
  const now = Date.now();
  const earliest = input.earliest ? new Date(input.earliest) : new Date(now);
  const latest = new Date(input.latest);
  return db.transaction().execute(async (trx) => {
    const { issues } = await checkRefs(trx, actor, [
      { field: 'patientId', table: 'patients', id: input.patientId },
      { field: 'leadId', table: 'leads', id: input.leadId },
      { field: 'doctorId', table: 'doctors', id: input.doctorId },
    ]);
    const calendar = await store.visibleCalendar(trx, actor, input.calendarId);
    if (!calendar) issues.push({ path: 'calendarId', message: 'calendario inesistente' });
    const doctorId = input.doctorId?.toLowerCase() ?? null;
    if (calendar && doctorId && !calendar.doctor_ids.includes(doctorId) && !issues.some((i) => i.path === 'doctorId'))
      issues.push({ path: 'doctorId', message: 'non è un medico di questo calendario' });
    issues.push(...entryBodyIssues(input, undefined, now));
    if (issues.length > 0) throw ApiError.invalid('body', issues);
    const outcome = await store.insertEntry(trx, actor.clinicId, {
      facility_id: calendar!.facility_id,
      calendar_id: calendar!.id,
      doctor_id: doctorId,
      patient_id: input.patientId?.toLowerCase() ?? null,
      lead_id: input.leadId?.toLowerCase() ?? null,
      earliest,
      latest,
      days: input.days ?? [],
      parts_of_day: input.partsOfDay ?? [],
      note: input.note ?? null,
      channel: input.channel,
    });
    switch (outcome.kind) {
      case 'created':
        return outcome.row;
      case 'already_waiting':
        throw ApiError.conflict('already_waiting', { entryId: outcome.entryId }, 'Questa persona è già in lista d’attesa per questo calendario.');
    }
  });
}

export async function listEntries(db: Db, actor: Actor, q: WaitlistListQuery): Promise<{ data: WaitlistEntryView[]; nextCursor: string | null }> {
  const page = await store.listEntries(db, actor, q);
  return { data: page.items.map((row) => entryView(row, actor.timeZone)), nextCursor: page.nextCursor };
}

export async function getEntry(db: Db, actor: Actor, id: string): Promise<EntryRow> {
  return store.findEntry(db, actor, id);
}

/** Takes an entry off the list; its live offer is withdrawn and its slot passes to the next entry. Removing it again does nothing. */
export async function removeEntry(db: Db, actor: Actor, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const entry = await store.lockEntry(trx, actor, id);
    if (entry.status !== 'open') return;
    await store.closeEntry(trx, entry.id, 'removed', null);
    const live = await store.lockLiveOfferOf(trx, actor.clinicId, entry.id);
    if (live) {
      await store.setOfferStatus(trx, live.id, 'withdrawn');
      await offerSlot(trx, actor, slotOf(live), null);
    }
  });
}

export async function listOffers(db: Db, actor: Actor, q: OfferListQuery): Promise<{ data: WaitlistOfferView[]; nextCursor: string | null }> {
  const page = await store.listOffers(db, actor, q);
  return { data: page.items.map((row) => offerView(row, actor.timeZone)), nextCursor: page.nextCursor };
}

/** The offer the actor sees and its entry, locked in that order (every writer of both locks the entry first). */
async function lockOfferAndEntry(trx: Transaction, actor: Actor, id: string): Promise<{ offer: OfferWithEntry; entry: EntryRow }> {
  const peeked = await store.peekOffer(trx, actor, id);
  if (!peeked) throw ApiError.notFound();
  const entry = await store.lockEntry(trx, { clinicId: actor.clinicId, facilityIds: null }, peeked.entry_id);
  const offer = await store.lockOffer(trx, actor.clinicId, id);
  return { offer, entry };
}

/**
 * Books the offered slot for the entry's person and closes the entry. Accepting again answers
 * the same offer. A lapsed offer still books while its slot is free (nobody else was offered it
 * or took it); otherwise `409 conflict` `offer_expired`.
 */
export async function acceptOffer(db: Db, actor: Actor, id: string): Promise<WaitlistOfferView> {
  return withOverlapCheck(() =>
    db.transaction().execute(async (trx) => {
      const { offer, entry } = await lockOfferAndEntry(trx, actor, id);
      if (offer.status === 'accepted') return offerView(offer, actor.timeZone);
      if (offer.status === 'declined') throw ApiError.conflict('offer_declined', {}, 'L’offerta è stata rifiutata.');
      if (offer.status === 'withdrawn') throw ApiError.conflict('offer_withdrawn', {}, 'L’offerta è stata ritirata: la persona non è più in lista.');
      if (entry.status !== 'open') throw ApiError.conflict('entry_closed', { entryStatus: entry.status }, 'La persona ha già prenotato da un’altra offerta.');
      const patientId = offer.patient_id ?? (await store.convertedPatientOf(trx, actor.clinicId, offer.lead_id!));
      if (!patientId) throw ApiError.conflict('lead_not_converted', { leadId: offer.lead_id }, 'Il contatto va prima registrato come paziente (convertLead).');
      const slot = slotOf(offer);
      const live = offer.status === 'offered' && offer.expires_at.getTime() > Date.now();
      if (!live) {
        // The slot was kept for nobody since the offer lapsed: it books only if it is still free.
        await store.lockSlotSchedules(trx, slot);
        if (await store.slotBusy(trx, actor.clinicId, slot, offer.id))
          throw ApiError.conflict('offer_expired', { expiresAt: offer.expires_at.toISOString() }, 'L’offerta è scaduta e l’orario non è più libero.');
      }
      const calendar = (await store.visibleCalendar(trx, { clinicId: actor.clinicId, facilityIds: null }, offer.calendar_id))!;
      const appointment = await insertAppointment(
        trx,
        actor,
        slotAppointment(calendar, { start: slot.start.toISOString(), end: slot.end.toISOString(), doctorId: slot.doctorId, chairId: slot.chairId }, patientId, {
          origin: agentOrigin(actor) ?? 'api',
        }),
      );
      const accepted = await store.setOfferStatus(trx, offer.id, 'accepted', appointment.id);
      await store.closeEntry(trx, entry.id, 'booked', appointment.id);
      return offerView({ ...accepted, patient_id: offer.patient_id, lead_id: offer.lead_id, channel: offer.channel }, actor.timeZone);
    }),
  );
}

/** The person says no: the slot passes at once to the next matching entry, or is freed. Declining again answers the same offer. */
export async function declineOffer(db: Db, actor: Actor, id: string): Promise<WaitlistOfferView> {
  return db.transaction().execute(async (trx) => {
    const { offer } = await lockOfferAndEntry(trx, actor, id);
    if (offer.status === 'declined') return offerView(offer, actor.timeZone);
    if (offer.status === 'accepted') throw ApiError.conflict('offer_accepted', { appointmentId: offer.appointment_id }, 'L’offerta è già stata accettata.');
    if (offer.status === 'expired') throw ApiError.conflict('offer_expired', {}, 'L’offerta è scaduta ed è passata ad altri.');
    if (offer.status === 'withdrawn') throw ApiError.conflict('offer_withdrawn', {}, 'L’offerta è stata ritirata.');
    const declined = await store.setOfferStatus(trx, offer.id, 'declined');
    await offerSlot(trx, actor, slotOf(offer), null);
    return offerView({ ...declined, patient_id: offer.patient_id, lead_id: offer.lead_id, channel: offer.channel }, actor.timeZone);
  });
}

export async function getWaitlistSettings(db: Db, clinicId: string): Promise<WaitlistSettings> {
  return { offerMinutes: await store.offerMinutes(db, clinicId) };
}

export async function setWaitlistSettings(db: Db, clinicId: string, input: WaitlistSettings): Promise<WaitlistSettings> {
  await store.saveOfferMinutes(db, clinicId, input.offerMinutes);
  return getWaitlistSettings(db, clinicId);
}
