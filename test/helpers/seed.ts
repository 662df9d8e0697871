/** Rows many tests need (patients, leads, calendars with their doctor and chair, documents), inserted directly or through the services; and `at`, a time N days from now. */
import { randomUUID } from 'node:crypto';
import { createDoctor } from '../../src/modules/doctors/service.js';
import { createChair } from '../../src/modules/chairs/service.js';
import { createCalendar } from '../../src/modules/calendars/service.js';
import { createAppointment } from '../../src/modules/scheduling/agenda.js';
import type { Tenant } from './factories.js';
import type { TestServer } from './server.js';
import type { WeekSchedule } from '../../src/db/tables/agenda.js';
import type { DocumentCategory, DocumentStatus } from '../../src/modules/documents/schema.js';

let n = 0;

/** A patient inserted straight into the core table (patients belong to another module). */
export async function insertPatient(
  server: TestServer,
  tenant: Tenant,
  facilityId: string | null = tenant.facilityIds[0],
  extra: Record<string, unknown> = {},
): Promise<string> {
  const id = randomUUID();
  n += 1;
  await server.ctx.db
    .insertInto('patients')
    .values({
      id,
      clinic_id: tenant.clinicId,
      facility_id: facilityId,
      first_name: 'Paziente',
      last_name: `Prova ${n}`,
      phone: `+39333000${String(1000 + n).slice(-4)}`,
      ...extra,
    })
    .execute();
  return id;
}

export async function insertLead(server: TestServer, tenant: Tenant, facilityId: string | null = tenant.facilityIds[0]): Promise<string> {
  const id = randomUUID();
  await server.ctx.db
    .insertInto('leads')
    .values({ id, clinic_id: tenant.clinicId, facility_id: facilityId, first_name: 'Contatto', phone: '+393471112222' })
    .execute();
  return id;
}

export const ALL_DAY: WeekSchedule = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ open: '00:00', close: '24:00' }]]));

/** A calendar of the tenant's first facility with its own new doctor (so tests never share a doctor's time). */
export async function makeCalendar(
  server: TestServer,
  tenant: Tenant,
  opts: {
    workingHours?: WeekSchedule;
    slotMinutes?: number;
    chairs?: number;
    minNoticeMinutes?: number;
    horizonDays?: number;
    cancellationNoticeMinutes?: number;
    doctors?: number;
  } = {},
) {
  const doctorIds: string[] = [];
  for (let i = 0; i < (opts.doctors ?? 1); i++)
    doctorIds.push((await createDoctor(server.ctx.db, tenant.clinicId, { firstName: 'Dott', lastName: `N${++n}`, facilityId: tenant.facilityIds[0] })).id);
  const chairIds: string[] = [];
  for (let i = 0; i < (opts.chairs ?? 0); i++)
    chairIds.push((await createChair(server.ctx.db, tenant.clinicId, { name: `Poltrona ${++n}`, facilityId: tenant.facilityIds[0] })).id);
  const cal = await createCalendar(server.ctx.db, await server.actor(tenant.clinicId), {
    facilityId: tenant.facilityIds[0],
    name: `Calendario ${++n}`,
    slotMinutes: opts.slotMinutes ?? 30,
    workingHours: opts.workingHours ?? ALL_DAY,
    doctorIds,
    chairIds,
    minNoticeMinutes: opts.minNoticeMinutes ?? 0,
    horizonDays: opts.horizonDays ?? 60,
    cancellationNoticeMinutes: opts.cancellationNoticeMinutes ?? 0,
  });
  return { id: cal.id, doctorIds, chairIds };
}

/** A grid-aligned instant `days` days from now at hh:mm UTC. */
export function at(days: number, hh: number, mm = 0): string {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + days);
  d.setUTCHours(hh, mm, 0, 0);
  return d.toISOString();
}

/** A document row of a patient, inserted straight into its table (documents belong to another module): `available` by default. */
export async function insertDocument(
  server: TestServer,
  tenant: Tenant,
  patientId: string,
  extra: { category?: DocumentCategory; status?: DocumentStatus; facilityId?: string | null; quoteId?: string | null; clinicId?: string } = {},
): Promise<string> {
  const id = randomUUID();
  await server.ctx.db
    .insertInto('documents')
    .values({
      id,
      clinic_id: extra.clinicId ?? tenant.clinicId,
      facility_id: extra.facilityId === undefined ? tenant.facilityIds[0] : extra.facilityId,
      patient_id: patientId,
      category: extra.category ?? 'consent',
      content_type: 'application/pdf',
      size_bytes: 1024,
      sha256: '0'.repeat(64),
      status: extra.status ?? 'available',
      quote_id: extra.quoteId ?? null,
      origin: 'api',
      storage_key: `documents/${tenant.clinicId}/${id}`,
    })
    .execute();
  return id;
}

/**
 * A half-hour appointment `hoursFromNow` ahead (on a whole minute), entered in the agenda of the
 * tenant's first facility, with `extra` fields (a status, a calendar) as the back office sends them.
 */
export async function appointmentAhead(
  server: TestServer,
  tenant: Tenant,
  patientId: string,
  hoursFromNow: number,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; start: Date }> {
  const start = new Date(Math.floor((Date.now() + hoursFromNow * 3_600_000) / 60_000) * 60_000);
  const row = await createAppointment(server.ctx.db, await server.actor(tenant.clinicId), {
    patientId,
    start: start.toISOString(),
    end: new Date(start.getTime() + 1_800_000).toISOString(),
    facilityId: tenant.facilityIds[0],
    ...extra,
  } as never);
  return { id: row.id, start };
}

/** Moves an appointment to a half hour starting at `start`, through the back office (`PATCH`). */
export async function moveInBackOffice(server: TestServer, tenant: Tenant, id: string, start: Date): Promise<void> {
  const res = await server.admin('PATCH', `/admin/v1/clinics/${tenant.clinicId}/appointments/${id}`, {
    start: start.toISOString(),
    end: new Date(start.getTime() + 1_800_000).toISOString(),
  });
  if (res.status !== 200) throw new Error(`move ${id}: ${res.status} ${res.text}`);
}
