/** Facilities as the API shows them (spec 2.11). */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { FacilitiesTable } from '../../db/tables/core.js';
import type { DB } from '../../db/schema.js';
import { backOffice, type TenantScope } from '../../db/tenant.js';
import { ApiError } from '../../core/errors.js';
import { assertVersion } from '../../core/version.js';
import { seesFacility } from '../auth/authenticate.js';
import type { Actor } from '../../core/actor.js';
import { facilityPhone } from '../clinics/service.js';
import { facilityBodyIssues } from './checks.js';
import type { FacilityChanges } from './schema.js';

export interface FacilityView {
  id: string;
  name: string;
  street: string | null;
  city: string | null;
  province: string | null;
  zipCode: string | null;
  phone: string | null;
  email: string | null;
  isMainLocation: boolean;
  avgAppointmentMinutes: number;
  workingSchedule: unknown;
  updatedAt: string;
}

export interface FacilityRead {
  view: FacilityView;
  version: number;
}

/** The clinic's facility, or null; no visibility check (see getFacility). */
export async function readFacility(db: Kysely<DB>, clinicId: string, id: string): Promise<FacilityRead | null> {
  const row = await db.selectFrom('facilities').selectAll().where('id', '=', id).where('clinic_id', '=', clinicId).executeTakeFirst();
  if (!row) return null;
  return { version: row.version, view: facilityView(row) };
}

export function facilityView(row: Selectable<FacilitiesTable>): FacilityView {
  return {
    id: row.id,
    name: row.name,
    street: row.street,
    city: row.city,
    province: row.province,
    zipCode: row.zip_code,
    phone: row.phone,
    email: row.email,
    isMainLocation: row.is_main_location,
    avgAppointmentMinutes: row.avg_appointment_minutes,
    workingSchedule: row.working_schedule,
    updatedAt: row.updated_at.toISOString(),
  };
}

/** 404 unless the facility exists in the clinic and the caller sees it (facility limits). */
export function visibleFacility(auth: TenantScope, found: FacilityRead | null): FacilityRead {
  if (!found || !seesFacility(auth, found.view.id)) throw ApiError.notFound();
  return found;
}

export async function getFacility(db: Kysely<DB>, auth: TenantScope, id: string): Promise<FacilityRead> {
  return visibleFacility(auth, await readFacility(db, auth.clinicId, id));
}

/** Back office: change a facility (only the fields sent), its working schedule included. */
export async function updateFacility(
  db: Kysely<DB>,
  actor: Pick<Actor, 'clinicId' | 'region'>,
  id: string,
  input: FacilityChanges,
  expected: number | null,
): Promise<{ view: FacilityView; version: number }> {
  const clinicId = actor.clinicId;
  const issues = facilityBodyIssues(input, actor);
  const phone = facilityPhone(input.phone, actor.region);
  if (issues.length > 0 || phone === false) throw ApiError.invalid('body', issues);
  const changes = phone === undefined ? input : { ...input, phone };
  await db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('facilities').select('version').where('id', '=', id).where('clinic_id', '=', clinicId).forUpdate().executeTakeFirst();
    if (!current) throw ApiError.notFound();
    assertVersion(expected, current.version);
    const columns: Record<string, string> = {
      name: 'name',
      street: 'street',
      city: 'city',
      province: 'province',
      zipCode: 'zip_code',
      phone: 'phone',
      email: 'email',
      isMainLocation: 'is_main_location',
      avgAppointmentMinutes: 'avg_appointment_minutes',
    };
    const set: Record<string, unknown> = {};
    for (const [field, column] of Object.entries(columns)) {
      const value = (changes as Record<string, unknown>)[field];
      if (value !== undefined) set[column] = value;
    }
    if (changes.workingSchedule !== undefined) set.working_schedule = changes.workingSchedule === null ? null : JSON.stringify(changes.workingSchedule);
    if (Object.keys(set).length === 0) return;
    await trx
      .updateTable('facilities')
      .set({ ...set, updated_at: sql`now()`, version: sql`version + 1` })
      .where('id', '=', id)
      .execute();
  });
  return getFacility(db, backOffice(clinicId), id);
}
