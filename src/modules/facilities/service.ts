/** Facilities (spec 2.11): as /v1 reads and lists them, and as the back office creates, changes and lists them. */
import { backOffice, type TenantScope } from '../../db/tenant.js';
import type { Db } from '../../db/transaction.js';
import { ApiError } from '../../core/errors.js';
import { versionMismatch } from '../../core/version.js';
import type { Actor } from '../../core/actor.js';
import type { UpdatedListQuery } from '../../core/schemas.js';
import { seesFacility } from '../auth/index.js';
import { assertClinic } from '../clinics/index.js';
import type { CreatedFacility, FacilityChanges, NewFacility } from './schema.js';
import { facilityBodyIssues, facilityPhone } from './checks.js';
import * as store from './store.js';

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
export async function readFacility(db: Db, clinicId: string, id: string): Promise<FacilityRead | null> {
  const row = await store.readFacilityRow(db, clinicId, id);
  if (!row) return null;
  return { version: row.version, view: facilityView(row) };
}

function facilityView(row: store.FacilityRow): FacilityView {
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

async function getFacility(db: Db, auth: TenantScope, id: string): Promise<FacilityRead> {
  return visibleFacility(auth, await readFacility(db, auth.clinicId, id));
}

/** /v1: a page of the facilities the key sees, by last modification. */
export async function listFacilities(db: Db, actor: Actor, q: UpdatedListQuery): Promise<{ data: FacilityView[]; nextCursor: string | null }> {
  const page = await store.pageFacilities(db, actor, q);
  return { data: page.items.map(facilityView), nextCursor: page.nextCursor };
}

/** Back office: every facility of the clinic, oldest first. */
export async function listAllFacilities(db: Db, clinicId: string) {
  await assertClinic(db, clinicId);
  return store.facilitySummaries(db, clinicId);
}

/** A facility id given with a clinic's record (a doctor's, a chair's…) must be one of that clinic's facilities. */
export async function assertFacilityOfClinic(db: Db, clinicId: string, facilityId: string, field = 'facilityId'): Promise<void> {
  if (!(await store.facilityOfClinic(db, clinicId, facilityId)))
    throw ApiError.invalid('body', [{ path: field, message: 'sede inesistente in questo studio' }]);
}

/** Back office: a new facility of the clinic. */
export async function createFacility(db: Db, actor: Pick<Actor, 'clinicId' | 'region'>, input: NewFacility): Promise<CreatedFacility> {
  const clinicId = actor.clinicId;
  const phone = facilityPhone(input.phone, actor.region);
  const issues = facilityBodyIssues(input, actor);
  // facilityBodyIssues names a phone that facilityPhone reads as no number (false).
  if (issues.length > 0 || phone === false) throw ApiError.invalid('body', issues);
  await assertClinic(db, clinicId);
  return store.insertFacility(db, clinicId, {
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
  });
}

/** The API's field of each column a change may set (the working schedule apart: it is written as JSON). */
const COLUMNS = {
  name: 'name',
  street: 'street',
  city: 'city',
  province: 'province',
  zipCode: 'zip_code',
  phone: 'phone',
  email: 'email',
  isMainLocation: 'is_main_location',
  avgAppointmentMinutes: 'avg_appointment_minutes',
} as const;

/** Back office: change a facility (only the fields sent), its working schedule included. */
export async function updateFacility(
  db: Db,
  actor: Pick<Actor, 'clinicId' | 'region'>,
  id: string,
  input: FacilityChanges,
  expected: number | null,
): Promise<{ view: FacilityView; version: number }> {
  const clinicId = actor.clinicId;
  const issues = facilityBodyIssues(input, actor);
  const phone = facilityPhone(input.phone, actor.region);
  // facilityBodyIssues names a phone that facilityPhone reads as no number (false).
  if (issues.length > 0 || phone === false) throw ApiError.invalid('body', issues);
  const changes = phone === undefined ? input : { ...input, phone };
  const set: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(COLUMNS)) {
    const value = (changes as Record<string, unknown>)[field];
    if (value !== undefined) set[column] = value;
  }
  if (changes.workingSchedule !== undefined) set.working_schedule = changes.workingSchedule === null ? null : JSON.stringify(changes.workingSchedule);
  const outcome = await store.updateFacilityRow(db, clinicId, id, set as Partial<store.FacilityColumns>, expected);
  if (outcome.kind === 'absent') throw ApiError.notFound();
  if (outcome.kind === 'version_mismatch') throw versionMismatch();
  return getFacility(db, backOffice(clinicId), id);
}
