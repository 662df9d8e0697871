/**
 * The waitlist (README.md beside this file): people waiting for a calendar's slot, and the
 * offers of freed slots made to them one entry at a time. Every caller (REST, back office, the
 * expiry job, agent tools) goes through these functions; the SQL is in store.ts.
 */
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { checkRefs } from '../../db/scoped.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { localReading } from '../../lib/local-reading.js';
import type { NewWaitlistEntry, OfferListQuery, WaitlistEntryView, WaitlistListQuery, WaitlistOfferView, WaitlistSettings } from './schema.js';
import * as store from './store.js';
import { entryBodyIssues } from './checks.js';
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

export async function listOffers(db: Db, actor: Actor, q: OfferListQuery): Promise<{ data: WaitlistOfferView[]; nextCursor: string | null }> {
  const page = await store.listOffers(db, actor, q);
  return { data: page.items.map((row) => offerView(row, actor.timeZone)), nextCursor: page.nextCursor };
}

/** The offer the actor sees and its entry, locked in that order (every writer of both locks the entry first). */
export async function lockOfferAndEntry(trx: Transaction, actor: Actor, id: string): Promise<{ offer: OfferWithEntry; entry: EntryRow }> {
  const peeked = await store.peekOffer(trx, actor, id);
  if (!peeked) throw ApiError.notFound();
  const entry = await store.lockEntry(trx, { clinicId: actor.clinicId, facilityIds: null }, peeked.entry_id);
  const offer = await store.lockOffer(trx, actor.clinicId, id);
  return { offer, entry };
}

export async function getWaitlistSettings(db: Db, clinicId: string): Promise<WaitlistSettings> {
  return { offerMinutes: await store.offerMinutes(db, clinicId) };
}

export async function setWaitlistSettings(db: Db, clinicId: string, input: WaitlistSettings): Promise<WaitlistSettings> {
  await store.saveOfferMinutes(db, clinicId, input.offerMinutes);
  return getWaitlistSettings(db, clinicId);
}
