/**
 * Back-office operations on tenants: organizations, clinics and the clinic's facilities,
 * doctors, chairs and staff profiles. Called by the admin routes, the CLI and the demo seed.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { toCanonicalPhone } from '../../lib/phone.js';
import type { Db } from '../../db/transaction.js';
import { doctorDisplayName } from './doctor-name.js';
import type { CreatedFacility, NewFacility } from '../facilities/schema.js';
import { facilityBodyIssues } from '../facilities/checks.js';
import type { ClinicChanges, ClinicView, DoctorAdminView, DoctorChanges, NewChair, NewClinic, NewDoctor, NewStaff, OrganizationView } from './schema.js';

export async function createOrganization(db: Db, input: { name: string }): Promise<OrganizationView> {
  const row = await db.insertInto('organizations').values({ id: randomUUID(), name: input.name }).returningAll().executeTakeFirstOrThrow();
  return { id: row.id, name: row.name, suspended: false, suspendedAt: null, createdAt: row.created_at.toISOString() };
}

export async function setOrganizationSuspended(db: Db, id: string, suspended: boolean): Promise<OrganizationView> {
  const row = await db
    .updateTable('organizations')
    .set({ suspended_at: suspended ? sql`coalesce(suspended_at, now())` : null, updated_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw ApiError.notFound();
  return {
    id: row.id,
    name: row.name,
    suspended: row.suspended_at !== null,
    suspendedAt: row.suspended_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

export async function createClinic(db: Db, input: NewClinic): Promise<ClinicView> {
  const id = await db.transaction().execute(async (trx) => {
    let organizationId = input.organizationId;
    if (organizationId) {
      const org = await trx.selectFrom('organizations').select('id').where('id', '=', organizationId).executeTakeFirst();
      if (!org) throw ApiError.invalid('body', [{ path: 'organizationId', message: 'organizzazione inesistente' }]);
    } else {
      organizationId = randomUUID();
      await trx.insertInto('organizations').values({ id: organizationId, name: input.name }).execute();
    }
    const clinicId = randomUUID();
    await trx
      .insertInto('clinics')
      .values({
        id: clinicId,
        organization_id: organizationId,
        name: input.name,
        mode: input.mode ?? 'live',
        plan_active: input.planActive ?? true,
        patient_limit: input.patientLimit ?? null,
        ai_enabled: input.aiEnabled ?? true,
        timezone: input.timezone ?? 'Europe/Rome',
      })
      .execute();
    return clinicId;
  });
  return getClinic(db, id);
}

export async function getClinic(db: Db, id: string): Promise<ClinicView> {
  const row = await db
    .selectFrom('clinics as c')
    .innerJoin('organizations as o', 'o.id', 'c.organization_id')
    .selectAll('c')
    .select('o.suspended_at')
    .where('c.id', '=', id)
    .executeTakeFirst();
  if (!row) throw ApiError.notFound();
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    mode: row.mode,
    planActive: row.plan_active,
    patientLimit: row.patient_limit,
    aiEnabled: row.ai_enabled,
    timezone: row.timezone,
    quotesRequireSignature: row.quotes_require_signature,
    suspended: row.suspended_at !== null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function listClinics(db: Db): Promise<ClinicView[]> {
  const rows = await db.selectFrom('clinics').select('id').orderBy('created_at').orderBy('id').execute();
  return Promise.all(rows.map((r) => getClinic(db, r.id)));
}

export async function updateClinic(db: Db, id: string, changes: ClinicChanges): Promise<ClinicView> {
  const set: Record<string, unknown> = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.planActive !== undefined) set.plan_active = changes.planActive;
  if (changes.patientLimit !== undefined) set.patient_limit = changes.patientLimit;
  if (changes.aiEnabled !== undefined) set.ai_enabled = changes.aiEnabled;
  if (changes.timezone !== undefined) set.timezone = changes.timezone;
  if (changes.quotesRequireSignature !== undefined) set.quotes_require_signature = changes.quotesRequireSignature;
  const result = await db
    .updateTable('clinics')
    .set({ ...set, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', id)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw ApiError.notFound();
  return getClinic(db, id);
}

async function assertClinic(db: Db, clinicId: string): Promise<void> {
  const row = await db.selectFrom('clinics').select('id').where('id', '=', clinicId).executeTakeFirst();
  if (!row) throw ApiError.notFound();
}

/** A facility id given with a clinic's record must be one of that clinic's facilities. */
export async function assertFacilityOfClinic(db: Db, clinicId: string, facilityId: string, field = 'facilityId'): Promise<void> {
  const row = await db.selectFrom('facilities').select('id').where('id', '=', facilityId).where('clinic_id', '=', clinicId).executeTakeFirst();
  if (!row) throw ApiError.invalid('body', [{ path: field, message: 'sede inesistente in questo studio' }]);
}

/**
 * A facility's phone as every other phone of the API: E.164, read in the actor's region when
 * typed without a country prefix. An empty string clears it; `false`: not a phone number
 * (facilityBodyIssues names it).
 */
export function facilityPhone(phone: string | null | undefined, region: string): string | null | undefined | false {
  if (phone === undefined || phone === null) return phone;
  if (phone.trim() === '') return null;
  return toCanonicalPhone(phone, region) ?? false;
}

export async function createFacility(db: Db, actor: Pick<Actor, 'clinicId' | 'region'>, input: NewFacility): Promise<CreatedFacility> {
  const clinicId = actor.clinicId;
  const phone = facilityPhone(input.phone, actor.region);
  const issues = facilityBodyIssues(input, actor);
  if (issues.length > 0 || phone === false) throw ApiError.invalid('body', issues);
  await assertClinic(db, clinicId);
  const row = await db
    .insertInto('facilities')
    .values({
      id: randomUUID(),
      clinic_id: clinicId,
      name: input.name,
      street: input.street ?? null,
      city: input.city ?? null,
      province: input.province ?? null,
      zip_code: input.zipCode ?? null,
      phone: phone ?? null,
      email: input.email ?? null,
      is_main_location: input.isMainLocation ?? false,
      avg_appointment_minutes: input.avgAppointmentMinutes ?? 30,
      working_schedule: input.workingSchedule ? JSON.stringify(input.workingSchedule) : null,
    })
    .returning(['id', 'name'])
    .executeTakeFirstOrThrow();
  return row;
}

export interface PersonView {
  id: string;
  clinicId: string;
  facilityId: string | null;
  firstName: string;
  lastName: string;
}

export async function createDoctor(db: Db, clinicId: string, input: NewDoctor): Promise<PersonView> {
  await assertClinic(db, clinicId);
  if (input.facilityId) await assertFacilityOfClinic(db, clinicId, input.facilityId);
  const row = await db
    .insertInto('doctors')
    .values({
      id: randomUUID(),
      clinic_id: clinicId,
      facility_id: input.facilityId ?? null,
      first_name: input.firstName,
      last_name: input.lastName,
      specialty: input.specialty ?? null,
      display_name: input.displayName ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { id: row.id, clinicId, facilityId: row.facility_id, firstName: row.first_name, lastName: row.last_name };
}

/**
 * Changes a doctor's names, display name, specialty or facility. `updated_at` moves, so
 * `GET /v1/doctors?updatedSince=` shows the change to every integration.
 */
export async function updateDoctor(db: Db, clinicId: string, id: string, changes: DoctorChanges): Promise<DoctorAdminView> {
  await assertClinic(db, clinicId);
  if (changes.facilityId) await assertFacilityOfClinic(db, clinicId, changes.facilityId);
  const row = await db
    .updateTable('doctors')
    .set({
      ...(changes.firstName !== undefined && { first_name: changes.firstName }),
      ...(changes.lastName !== undefined && { last_name: changes.lastName }),
      ...(changes.facilityId !== undefined && { facility_id: changes.facilityId }),
      ...(changes.specialty !== undefined && { specialty: changes.specialty }),
      ...(changes.displayName !== undefined && { display_name: changes.displayName }),
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .where('clinic_id', '=', clinicId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw ApiError.notFound();
  return {
    id: row.id,
    facilityId: row.facility_id,
    firstName: row.first_name,
    lastName: row.last_name,
    displayName: doctorDisplayName(row),
    specialty: row.specialty,
    active: row.active,
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function createChair(db: Db, clinicId: string, input: NewChair): Promise<{ id: string; facilityId: string; name: string }> {
  await assertClinic(db, clinicId);
  await assertFacilityOfClinic(db, clinicId, input.facilityId);
  const row = await db
    .insertInto('chairs')
    .values({ id: randomUUID(), clinic_id: clinicId, facility_id: input.facilityId, name: input.name })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { id: row.id, facilityId: row.facility_id, name: row.name };
}

export async function createStaffProfile(db: Db, clinicId: string, input: NewStaff): Promise<PersonView & { email: string | null; role: string }> {
  await assertClinic(db, clinicId);
  if (input.facilityId) await assertFacilityOfClinic(db, clinicId, input.facilityId);
  const row = await db
    .insertInto('staff_profiles')
    .values({
      id: randomUUID(),
      clinic_id: clinicId,
      facility_id: input.facilityId ?? null,
      first_name: input.firstName,
      last_name: input.lastName,
      email: input.email ?? null,
      role: input.role ?? 'staff',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return {
    id: row.id,
    clinicId,
    facilityId: row.facility_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    role: row.role,
  };
}

export async function listFacilities(db: Db, clinicId: string) {
  await assertClinic(db, clinicId);
  return db.selectFrom('facilities').select(['id', 'name', 'city']).where('clinic_id', '=', clinicId).orderBy('created_at').orderBy('id').execute();
}

export async function listDoctors(db: Db, clinicId: string) {
  await assertClinic(db, clinicId);
  return db
    .selectFrom('doctors')
    .select(['id', 'facility_id as facilityId', 'first_name as firstName', 'last_name as lastName'])
    .where('clinic_id', '=', clinicId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function listChairs(db: Db, clinicId: string) {
  await assertClinic(db, clinicId);
  return db
    .selectFrom('chairs')
    .select(['id', 'facility_id as facilityId', 'name'])
    .where('clinic_id', '=', clinicId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function listStaffProfiles(db: Db, clinicId: string) {
  await assertClinic(db, clinicId);
  return db
    .selectFrom('staff_profiles')
    .select(['id', 'facility_id as facilityId', 'first_name as firstName', 'last_name as lastName', 'email', 'role'])
    .where('clinic_id', '=', clinicId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
