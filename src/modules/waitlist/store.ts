/**
 * The waitlist's SQL (README.md beside this file): entries, offers, and the reads a freed slot
 * needs. Each write answers a closed union of outcomes; the service holds the rules.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Compilable, type Selectable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { keysetPage } from '../../db/keyset.js';
import { ApiError } from '../../core/errors.js';
import { findScoped, findScopedOrNull } from '../../db/scoped.js';
import { facilityVisible, type TenantScope } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { WaitlistEntriesTable, WaitlistOffersTable } from '../../db/tables/waitlist.js';
import type { CalendarsTable } from '../../db/tables/agenda.js';
import { DEFAULT_OFFER_MINUTES, type OfferListQuery, type OfferStatus, type WaitlistListQuery } from './schema.js';

export type EntryRow = Selectable<WaitlistEntriesTable>;
export type OfferRow = Selectable<WaitlistOffersTable>;
/** An offer with what its entry says about whom to reach. */
export type OfferWithEntry = OfferRow & { patient_id: string | null; lead_id: string | null; channel: string };

/** A slot as the waitlist sees it: a calendar's doctor and chair over a time. */
export interface FreedSlot {
  calendarId: string;
  doctorId: string | null;
  chairId: string | null;
  start: Date;
  end: Date;
}

type EntryInsert = Omit<EntryRow, 'id' | 'clinic_id' | 'status' | 'appointment_id' | 'created_at' | 'updated_at'>;

/** A new open entry, or the open entry the person already has for this calendar. */
export async function insertEntry(
  trx: Transaction,
  clinicId: string,
  values: EntryInsert,
): Promise<{ kind: 'created'; row: EntryRow } | { kind: 'already_waiting'; entryId: string }> {
  const { rows } = await sql<EntryRow>`
    INSERT INTO waitlist_entries (id, clinic_id, facility_id, calendar_id, doctor_id, patient_id, lead_id, earliest, latest, days, parts_of_day, note, channel)
    VALUES (${randomUUID()}, ${clinicId}, ${values.facility_id}, ${values.calendar_id}, ${values.doctor_id}, ${values.patient_id}, ${values.lead_id},
      ${values.earliest}, ${values.latest}, ${values.days}::text[], ${values.parts_of_day}::text[], ${values.note}, ${values.channel})
    ON CONFLICT (clinic_id, calendar_id, (coalesce(patient_id, lead_id))) WHERE status = 'open' DO NOTHING
    RETURNING *`.execute(trx);
  if (rows[0]) return { kind: 'created', row: rows[0] };
  const existing = await trx
    .selectFrom('waitlist_entries')
    .select('id')
    .where('clinic_id', '=', clinicId)
    .where('calendar_id', '=', values.calendar_id)
    .where(sql<boolean>`coalesce(patient_id, lead_id) = ${values.patient_id ?? values.lead_id}`)
    .where('status', '=', 'open')
    .executeTakeFirstOrThrow();
  return { kind: 'already_waiting', entryId: existing.id };
}

/** The calendar of the scope with this id (its doctors are checked by the service), or null. */
export async function visibleCalendar(trx: Transaction, scope: TenantScope, id: string): Promise<Selectable<CalendarsTable> | null> {
  return findScopedOrNull(trx, 'calendars', scope, id);
}

export async function findEntry(db: Db, scope: TenantScope, id: string): Promise<EntryRow> {
  return findScoped(db, 'waitlist_entries', scope, id);
}

/**
 * The entry locked FOR NO KEY UPDATE: an offer's insert for it (its foreign key takes KEY SHARE)
 * does not wait for this lock, so a cancellation or reschedule holding a schedule lock never
 * waits on an accept that waits for that schedule lock (no cycle of waits).
 */
export async function lockEntry(trx: Transaction, scope: TenantScope, id: string): Promise<EntryRow> {
  const row = await trx
    .selectFrom('waitlist_entries')
    .selectAll()
    .where('id', '=', id)
    .where('clinic_id', '=', scope.clinicId)
    .where(facilityVisible('facility_id', scope))
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!row) throw ApiError.notFound();
  return row;
}

export async function listEntries(db: Db, actor: Actor, q: WaitlistListQuery): Promise<{ items: EntryRow[]; nextCursor: string | null }> {
  const filters = JSON.stringify([q.status ?? null, q.calendarId?.toLowerCase() ?? null, q.patientId?.toLowerCase() ?? null, q.leadId?.toLowerCase() ?? null]);
  let query = db.selectFrom('waitlist_entries').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
  if (q.status) query = query.where('status', '=', q.status);
  if (q.calendarId) query = query.where('calendar_id', '=', q.calendarId);
  if (q.patientId) query = query.where('patient_id', '=', q.patientId);
  if (q.leadId) query = query.where('lead_id', '=', q.leadId);
  return keysetPage(query, {
    columns: ['created_at', 'id'],
    at: (r) => r.created_at,
    secret: actor.cursorSecret,
    scope: `waitlist:${actor.clinicId}:${filters}`,
    cursor: q.cursor,
    limit: q.limit,
  });
}

export async function closeEntry(trx: Transaction, id: string, status: 'booked' | 'removed', appointmentId: string | null): Promise<EntryRow> {
  return trx
    .updateTable('waitlist_entries')
    .set({ status, appointment_id: appointmentId, updated_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

function offersWithEntry(db: Db) {
  return db
    .selectFrom('waitlist_offers as o')
    .innerJoin('waitlist_entries as e', 'e.id', 'o.entry_id')
    .selectAll('o')
    .select(['e.patient_id', 'e.lead_id', 'e.channel']);
}

export async function listOffers(db: Db, actor: Actor, q: OfferListQuery): Promise<{ items: OfferWithEntry[]; nextCursor: string | null }> {
  const filters = JSON.stringify([q.status ?? null, q.entryId?.toLowerCase() ?? null, q.calendarId?.toLowerCase() ?? null]);
  let query = offersWithEntry(db).where('o.clinic_id', '=', actor.clinicId).where(facilityVisible('o.facility_id', actor));
  if (q.status) query = query.where('o.status', '=', q.status);
  if (q.entryId) query = query.where('o.entry_id', '=', q.entryId);
  if (q.calendarId) query = query.where('o.calendar_id', '=', q.calendarId);
  return keysetPage(query, {
    columns: ['o.created_at', 'o.id'],
    at: (r) => r.created_at,
    secret: actor.cursorSecret,
    scope: `waitlist-offers:${actor.clinicId}:${filters}`,
    cursor: q.cursor,
    limit: q.limit,
  });
}

/** The offer the scope sees, without a lock (to find its entry, locked first), or null. */
export async function peekOffer(trx: Transaction, scope: TenantScope, id: string): Promise<OfferRow | null> {
  return findScopedOrNull(trx, 'waitlist_offers', scope, id);
}

/** The offer locked for update, with its entry's person and channel. */
export async function lockOffer(trx: Transaction, clinicId: string, id: string): Promise<OfferWithEntry> {
  return offersWithEntry(trx).where('o.id', '=', id).where('o.clinic_id', '=', clinicId).forUpdate('o').executeTakeFirstOrThrow();
}

/** The live offer of an entry, locked, or null. */
export async function lockLiveOfferOf(trx: Transaction, clinicId: string, entryId: string): Promise<OfferRow | null> {
  const row = await trx
    .selectFrom('waitlist_offers')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('entry_id', '=', entryId)
    .where('status', '=', 'offered')
    .forUpdate()
    .executeTakeFirst();
  return row ?? null;
}

export async function setOfferStatus(trx: Transaction, id: string, status: OfferStatus, appointmentId: string | null = null): Promise<OfferRow> {
  return trx
    .updateTable('waitlist_offers')
    .set({ status, ...(appointmentId ? { appointment_id: appointmentId } : {}), updated_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The patient a lead became, or null while it is not converted. */
export async function convertedPatientOf(trx: Transaction, clinicId: string, leadId: string): Promise<string | null> {
  const row = await trx.selectFrom('leads').select('converted_patient_id').where('clinic_id', '=', clinicId).where('id', '=', leadId).executeTakeFirst();
  return row?.converted_patient_id ?? null;
}

/**
 * The open entries that may be offered this slot, in order of creation: of its calendar (an
 * active one, the slot beyond its minimum notice), for its doctor or any, whose window holds the
 * slot, that have no live offer and were not offered this slot before, and not `exceptPatientId`
 * (who gave it up); none while anything else takes the slot's time. Preferences of days and
 * parts of the day are the service's (fitsPreferences).
 */
export async function candidateEntries(
  trx: Transaction,
  clinicId: string,
  slot: FreedSlot,
  exceptPatientId: string | null,
  /** The query of the time taken on the slot's doctor and chair (the calendars' busyTimesQuery): any row found means no entry. */
  busy: Compilable<unknown>,
): Promise<EntryRow[]> {
  // The slot's time must be free of anything else (slotBusy), checked in the same statement: one round trip fewer per cancellation.
  const { rows } = await sql<EntryRow>`
    WITH busy AS (${busy})
    SELECT e.* FROM waitlist_entries e
    JOIN calendars c ON c.id = e.calendar_id AND c.clinic_id = e.clinic_id
    WHERE e.clinic_id = ${clinicId} AND e.calendar_id = ${slot.calendarId} AND e.status = 'open'
      AND c.active AND ${slot.start} > now() + make_interval(mins => c.min_notice_minutes)
      AND (e.doctor_id IS NULL OR e.doctor_id = ${slot.doctorId}::uuid)
      AND e.earliest <= ${slot.start} AND e.latest >= ${slot.end}
      AND (${exceptPatientId}::uuid IS NULL OR e.patient_id IS DISTINCT FROM ${exceptPatientId}::uuid)
      AND NOT EXISTS (
        SELECT 1 FROM waitlist_offers o
        WHERE o.clinic_id = e.clinic_id AND o.entry_id = e.id
          AND (o.status = 'offered' OR (o.calendar_id = ${slot.calendarId} AND o.start_at = ${slot.start})))
      AND NOT EXISTS (SELECT 1 FROM busy)
    ORDER BY e.created_at, e.id
    LIMIT 200`.execute(trx);
  return rows;
}

/** Takes the slot's doctor's and chair's schedule locks until commit (0051_schedule_lock.sql). */
export async function lockSlotSchedules(trx: Transaction, slot: FreedSlot): Promise<void> {
  await sql`SELECT lock_schedules(${[slot.doctorId, slot.chairId].filter((x) => x !== null)}::uuid[])`.execute(trx);
}

/**
 * An offer of the slot to the entry, expiring after the clinic's setting (default 30 minutes),
 * or `entry_has_offer` when a parallel transaction gave the entry an offer first (the unique
 * index of live offers per entry: this insert waits for that commit, then does nothing).
 */
export async function insertOffer(
  trx: Transaction,
  entry: EntryRow,
  slot: FreedSlot,
): Promise<{ kind: 'created'; row: OfferRow } | { kind: 'entry_has_offer' }> {
  const { rows } = await sql<OfferRow>`
    INSERT INTO waitlist_offers (id, clinic_id, facility_id, calendar_id, entry_id, doctor_id, chair_id, start_at, end_at, expires_at)
    VALUES (${randomUUID()}, ${entry.clinic_id}, ${entry.facility_id}, ${slot.calendarId}, ${entry.id}, ${slot.doctorId}, ${slot.chairId}, ${slot.start}, ${slot.end},
      now() + make_interval(mins => coalesce((SELECT offer_minutes FROM waitlist_settings WHERE clinic_id = ${entry.clinic_id}), ${DEFAULT_OFFER_MINUTES})))
    ON CONFLICT (clinic_id, entry_id) WHERE status = 'offered' DO NOTHING
    RETURNING *`.execute(trx);
  return rows[0] ? { kind: 'created', row: rows[0] } : { kind: 'entry_has_offer' };
}

/** Live offers past their expiry, oldest first, with their clinic's time zone (the expiry job). */
export async function lapsedOffers(db: Db, limit: number): Promise<Array<{ id: string; clinic_id: string; timezone: string }>> {
  const { rows } = await sql<{ id: string; clinic_id: string; timezone: string }>`
    SELECT o.id, o.clinic_id, c.timezone FROM waitlist_offers o JOIN clinics c ON c.id = o.clinic_id
    WHERE o.status = 'offered' AND o.expires_at <= now()
    ORDER BY o.expires_at LIMIT ${limit}`.execute(db);
  return rows;
}

/** The offer, locked, if it is still live and lapsed; null when another process took it first. */
export async function claimLapsedOffer(trx: Transaction, id: string): Promise<OfferRow | null> {
  const { rows } = await sql<OfferRow>`
    SELECT * FROM waitlist_offers WHERE id = ${id} AND status = 'offered' AND expires_at <= now() FOR UPDATE SKIP LOCKED`.execute(trx);
  return rows[0] ?? null;
}

export async function offerMinutes(db: Db, clinicId: string): Promise<number> {
  const row = await db.selectFrom('waitlist_settings').select('offer_minutes').where('clinic_id', '=', clinicId).executeTakeFirst();
  return row?.offer_minutes ?? DEFAULT_OFFER_MINUTES;
}

export async function saveOfferMinutes(db: Db, clinicId: string, minutes: number): Promise<void> {
  await db
    .insertInto('waitlist_settings')
    .values({ clinic_id: clinicId, offer_minutes: minutes })
    .onConflict((oc) => oc.column('clinic_id').doUpdateSet({ offer_minutes: minutes, updated_at: sql`now()` }))
    .execute();
}
