/**
 * The SQL of the calendars as /v1 lists and reads them (directory.ts). Apart from the calendars'
 * own store so that the directory's reads and the booking's writes can change independently.
 */
import { sql, type Selectable } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { updatedPage } from '../../db/keyset.js';
import { findScoped } from '../../db/scoped.js';
import type { CalendarsTable } from '../../db/tables/agenda.js';
import { facilityVisible, type TenantScope } from '../../db/tenant.js';
import type { Db } from '../../db/transaction.js';
import type { CalendarListQuery } from './schema.js';

export type CalendarRow = Selectable<CalendarsTable>;

/** A page of the calendars the actor sees, by last modification, of a facility or of a doctor. */
export async function pageCalendars(db: Db, actor: Actor, q: CalendarListQuery) {
  let query = db.selectFrom('calendars').selectAll().where('clinic_id', '=', actor.clinicId).where(facilityVisible('facility_id', actor));
  if (q.facilityId) query = query.where('facility_id', '=', q.facilityId);
  if (q.doctorId) query = query.where(sql<boolean>`${q.doctorId}::uuid = ANY(doctor_ids)`);
  return updatedPage(query, {
    name: 'calendars',
    clinicId: actor.clinicId,
    secret: actor.cursorSecret,
    q,
    filters: [q.facilityId?.toLowerCase() ?? null, q.doctorId?.toLowerCase() ?? null],
  });
}

/** The calendar the scope sees (404 otherwise). */
export async function findCalendar(db: Db, scope: TenantScope, id: string): Promise<CalendarRow> {
  return findScoped(db, 'calendars', scope, id);
}
