/** The SQL of tenants (service.ts): organizations, clinics, and the clinic row the back office's actor reads. */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { ClinicsTable, OrganizationsTable } from '../../db/tables/core.js';
import type { Db } from '../../db/transaction.js';
import type { ClinicChanges, NewClinic } from './schema.js';

export type OrganizationRow = Selectable<OrganizationsTable>;
type ClinicRow = Selectable<ClinicsTable> & { suspended_at: Date | null };

export async function insertOrganization(db: Db, name: string): Promise<OrganizationRow> {
  return db.insertInto('organizations').values({ id: randomUUID(), name }).returningAll().executeTakeFirstOrThrow();
}

/** Suspends (keeping the first instant) or reinstates; null for an unknown organization. */
export async function setSuspended(db: Db, id: string, suspended: boolean): Promise<OrganizationRow | null> {
  const row = await db
    .updateTable('organizations')
    .set({ suspended_at: suspended ? sql`coalesce(suspended_at, now())` : null, updated_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

type ClinicInsert = { kind: 'created'; id: string } | { kind: 'unknown_organization' };

/** The clinic, in the organization given or in a new one of the same name, in one transaction. */
export async function insertClinic(db: Db, input: NewClinic): Promise<ClinicInsert> {
  return db.transaction().execute(async (trx): Promise<ClinicInsert> => {
    let organizationId = input.organizationId;
    if (organizationId) {
      const org = await trx.selectFrom('organizations').select('id').where('id', '=', organizationId).executeTakeFirst();
      if (!org) return { kind: 'unknown_organization' };
    } else {
      organizationId = randomUUID();
      await trx.insertInto('organizations').values({ id: organizationId, name: input.name }).execute();
    }
    const id = randomUUID();
    await trx
      .insertInto('clinics')
      .values({
        id,
        organization_id: organizationId,
        name: input.name,
        mode: input.mode ?? 'live',
        plan_active: input.planActive ?? true,
        patient_limit: input.patientLimit ?? null,
        ai_enabled: input.aiEnabled ?? true,
        timezone: input.timezone ?? 'Europe/Rome',
      })
      .execute();
    return { kind: 'created', id };
  });
}

/** The clinic with its organization's suspension, or null. */
export async function readClinic(db: Db, id: string): Promise<ClinicRow | null> {
  const row = await db
    .selectFrom('clinics as c')
    .innerJoin('organizations as o', 'o.id', 'c.organization_id')
    .selectAll('c')
    .select('o.suspended_at')
    .where('c.id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

export async function clinicIds(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('clinics').select('id').orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => r.id);
}

/** Only the fields sent change; the version moves. False for an unknown clinic. */
export async function updateClinicRow(db: Db, id: string, changes: ClinicChanges): Promise<boolean> {
  const set: Record<string, unknown> = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.planActive !== undefined) set.plan_active = changes.planActive;
  if (changes.patientLimit !== undefined) set.patient_limit = changes.patientLimit;
  if (changes.aiEnabled !== undefined) set.ai_enabled = changes.aiEnabled;
  if (changes.timezone !== undefined) set.timezone = changes.timezone;
  if (changes.quotesRequireSignature !== undefined) set.quotes_require_signature = changes.quotesRequireSignature;
  if (changes.retellSecret !== undefined) set.retell_secret = changes.retellSecret;
  const result = await db
    .updateTable('clinics')
    .set({ ...set, updated_at: sql`now()`, version: sql`version + 1` })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function clinicExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('clinics').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** What the back office's actor needs of its clinic (actor.ts), or null. */
export async function clinicForActor(db: Db, id: string) {
  const row = await db.selectFrom('clinics').select(['id', 'organization_id', 'mode', 'ai_enabled', 'timezone']).where('id', '=', id).executeTakeFirst();
  return row ?? null;
}

export async function retellSecret(db: Db, clinicId: string): Promise<string | null> {
  const row = await db.selectFrom('clinics').select('retell_secret').where('id', '=', clinicId).executeTakeFirst();
  return row?.retell_secret ?? null;
}

/** Whether the database holds any clinic yet (the first steps printed at start). */
export async function anyClinic(db: Db): Promise<boolean> {
  return (await db.selectFrom('clinics').select('id').limit(1).executeTakeFirst()) !== undefined;
}
