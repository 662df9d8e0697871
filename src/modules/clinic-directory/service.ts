/**
 * The Clinic area of /v1 (README.md beside this file): facilities, doctors, chairs, staff
 * profiles and calendars as a key sees them, each list a page by last modification.
 */
import { sql, type Selectable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { decodeKeyset, encodeKeyset, pageOf } from '../../core/cursor.js';
import { after } from '../../db/keyset.js';
import { findScoped } from '../../db/scoped.js';
import type { CalendarsTable } from '../../db/tables/agenda.js';
import type { ChairsTable, DoctorsTable, StaffProfilesTable } from '../../db/tables/core.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db } from '../../db/transaction.js';
import { calendarView } from '../calendars/service.js';
import type { CalendarView } from '../calendars/schema.js';
import { facilityView, type FacilityView } from '../facilities/service.js';
import { doctorDisplayName } from '../clinics/doctor-name.js';
import type { CalendarListQuery, ChairView, DoctorListQuery, DoctorView, ListQuery, StaffProfileView } from './schema.js';

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

type Listed = { updated_at: Date; id: string };

/**
 * One page of a list: `updatedSince`, the cursor (signed for this clinic, list and filters),
 * then `limit + 1` rows in (updated_at, id) order.
 */
async function page<R extends Listed, V>(
  actor: Actor,
  list: string,
  q: ListQuery,
  filters: unknown[],
  run: (from: { updatedSince: Date | null; after: [Date, string] | null; limit: number }) => Promise<R[]>,
  view: (rows: R[]) => Promise<V[]> | V[],
): Promise<Page<V>> {
  const limit = q.limit ?? 50;
  const scope = `${list}:${actor.clinicId}:${JSON.stringify([q.updatedSince ?? null, ...filters])}`;
  const rows = await run({
    updatedSince: q.updatedSince ? new Date(q.updatedSince) : null,
    after: q.cursor ? decodeKeyset(actor.cursorSecret, scope, q.cursor) : null,
    limit: limit + 1,
  });
  const { items, nextCursor } = pageOf(rows, limit, (r) => encodeKeyset(actor.cursorSecret, scope, r.updated_at, r.id));
  return { data: await view(items), nextCursor };
}

export async function listFacilities(db: Db, actor: Actor, q: ListQuery): Promise<Page<FacilityView>> {
  return page(
    actor,
    'facilities',
    q,
    [],
    async (p) => {
      let query = db.selectFrom('facilities').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('id', actor));
      if (p.updatedSince) query = query.where('updated_at', '>=', p.updatedSince);
      if (p.after) query = query.where(after(['updated_at', 'id'], p.after));
      return query.orderBy('updated_at').orderBy('id').limit(p.limit).execute();
    },
    (rows) => rows.map(facilityView),
  );
}

type DoctorRow = Selectable<DoctorsTable>;

/** The doctors with the calendars (visible to the actor) they work in. */
async function doctorViews(db: Db, actor: Actor, rows: DoctorRow[]): Promise<DoctorView[]> {
  if (rows.length === 0) return [];
  const calendars = await db
    .selectFrom('calendars')
    .select(['id', 'doctor_ids'])
    .where('clinic_id', '=', actor.clinicId)
    .where(facilityVisible('facility_id', actor))
    .where(sql<boolean>`doctor_ids && ${rows.map((r) => r.id)}::uuid[]`)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    firstName: r.first_name,
    lastName: r.last_name,
    displayName: doctorDisplayName(r),
    specialty: r.specialty,
    facilityId: r.facility_id,
    calendarIds: calendars.filter((c) => c.doctor_ids.includes(r.id)).map((c) => c.id),
    active: r.active,
    updatedAt: r.updated_at.toISOString(),
  }));
}

export async function listDoctors(db: Db, actor: Actor, q: DoctorListQuery): Promise<Page<DoctorView>> {
  return page(
    actor,
    'doctors',
    q,
    [q.facilityId?.toLowerCase() ?? null, q.calendarId?.toLowerCase() ?? null],
    async (p) => {
      let query = db.selectFrom('doctors').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
      if (q.facilityId) query = query.where('facility_id', '=', q.facilityId);
      if (q.calendarId) {
        const calendarId = q.calendarId;
        query = query.where((eb) =>
          eb.exists(
            eb
              .selectFrom('calendars')
              .select('calendars.id')
              .where('calendars.id', '=', calendarId)
              .where('calendars.clinic_id', '=', actor.clinicId)
              .where(facilityVisible('calendars.facility_id', actor))
              .where(sql<boolean>`doctors.id = ANY(calendars.doctor_ids)`),
          ),
        );
      }
      if (p.updatedSince) query = query.where('updated_at', '>=', p.updatedSince);
      if (p.after) query = query.where(after(['updated_at', 'doctors.id'], p.after));
      return query.orderBy('updated_at').orderBy('id').limit(p.limit).execute();
    },
    (rows) => doctorViews(db, actor, rows),
  );
}

export async function getDoctor(db: Db, actor: Actor, id: string): Promise<DoctorView> {
  const row = await findScoped(db, 'doctors', actor, id);
  return (await doctorViews(db, actor, [row]))[0]!;
}

export async function listChairs(db: Db, actor: Actor, q: ListQuery): Promise<Page<ChairView>> {
  return page(
    actor,
    'chairs',
    q,
    [],
    async (p) => {
      let query = db.selectFrom('chairs').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
      if (p.updatedSince) query = query.where('updated_at', '>=', p.updatedSince);
      if (p.after) query = query.where(after(['updated_at', 'id'], p.after));
      return query.orderBy('updated_at').orderBy('id').limit(p.limit).execute();
    },
    (rows: Selectable<ChairsTable>[]) =>
      rows.map((r) => ({ id: r.id, name: r.name, facilityId: r.facility_id, active: r.active, updatedAt: r.updated_at.toISOString() })),
  );
}

export async function listStaffProfiles(db: Db, actor: Actor, q: ListQuery): Promise<Page<StaffProfileView>> {
  return page(
    actor,
    'staff-profiles',
    q,
    [],
    async (p) => {
      let query = db.selectFrom('staff_profiles').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
      if (p.updatedSince) query = query.where('updated_at', '>=', p.updatedSince);
      if (p.after) query = query.where(after(['updated_at', 'id'], p.after));
      return query.orderBy('updated_at').orderBy('id').limit(p.limit).execute();
    },
    (rows: Selectable<StaffProfilesTable>[]) =>
      rows.map((r) => ({
        id: r.id,
        firstName: r.first_name,
        lastName: r.last_name,
        role: r.role,
        facilityId: r.facility_id,
        active: r.active,
        updatedAt: r.updated_at.toISOString(),
      })),
  );
}

export async function listCalendars(db: Db, actor: Actor, q: CalendarListQuery): Promise<Page<CalendarView>> {
  return page(
    actor,
    'calendars',
    q,
    [q.facilityId?.toLowerCase() ?? null, q.doctorId?.toLowerCase() ?? null],
    async (p) => {
      let query = db.selectFrom('calendars').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
      if (q.facilityId) query = query.where('facility_id', '=', q.facilityId);
      if (q.doctorId) query = query.where(sql<boolean>`${q.doctorId}::uuid = ANY(doctor_ids)`);
      if (p.updatedSince) query = query.where('updated_at', '>=', p.updatedSince);
      if (p.after) query = query.where(after(['updated_at', 'id'], p.after));
      return query.orderBy('updated_at').orderBy('id').limit(p.limit).execute();
    },
    (rows: Selectable<CalendarsTable>[]) => rows.map(calendarView),
  );
}

export async function getCalendar(db: Db, actor: Actor, id: string): Promise<CalendarView> {
  return calendarView(await findScoped(db, 'calendars', actor, id));
}
