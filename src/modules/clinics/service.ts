/**
 * Back-office operations on tenants: organizations and clinics. Called by the admin routes,
 * the CLI and the demo seed. A clinic's facilities, doctors, chairs and staff profiles are in
 * the modules of their names (`assertClinic` is their check that the clinic exists).
 */
import { ApiError } from '../../core/errors.js';
import type { Db } from '../../db/transaction.js';
import type { ClinicChanges, ClinicView, NewClinic, OrganizationView } from './schema.js';
import { clinicBodyIssues } from './checks.js';
import * as store from './store.js';

function organizationView(row: store.OrganizationRow): OrganizationView {
  return {
    id: row.id,
    name: row.name,
    suspended: row.suspended_at !== null,
    suspendedAt: row.suspended_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

export async function createOrganization(db: Db, input: { name: string }): Promise<OrganizationView> {
  return organizationView(await store.insertOrganization(db, input.name));
}

export async function setOrganizationSuspended(db: Db, id: string, suspended: boolean): Promise<OrganizationView> {
  const row = await store.setSuspended(db, id, suspended);
  if (!row) throw ApiError.notFound();
  return organizationView(row);
}

export async function createClinic(db: Db, input: NewClinic): Promise<ClinicView> {
  const issues = clinicBodyIssues(input);
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  const outcome = await store.insertClinic(db, input);
  if (outcome.kind === 'unknown_organization') throw ApiError.invalid('body', [{ path: 'organizationId', message: 'organizzazione inesistente' }]);
  return getClinic(db, outcome.id);
}

export async function getClinic(db: Db, id: string): Promise<ClinicView> {
  const row = await store.readClinic(db, id);
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
    retellSecretSet: row.retell_secret !== null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function listClinics(db: Db): Promise<ClinicView[]> {
  return Promise.all((await store.clinicIds(db)).map((id) => getClinic(db, id)));
}

export async function updateClinic(db: Db, id: string, changes: ClinicChanges): Promise<ClinicView> {
  const issues = clinicBodyIssues(changes);
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  if (!(await store.updateClinicRow(db, id, changes))) throw ApiError.notFound();
  return getClinic(db, id);
}

/**
 * The Retell key of the clinic of this actor (null: none set), for the runner's check of
 * `X-Retell-Signature`. Read per request, so a key set or removed applies at once.
 */
export async function retellSecretOf(db: Db, clinicId: string): Promise<string | null> {
  return store.retellSecret(db, clinicId);
}

/** 404 unless the clinic of a back-office path exists. */
export async function assertClinic(db: Db, clinicId: string): Promise<void> {
  if (!(await store.clinicExists(db, clinicId))) throw ApiError.notFound();
}
