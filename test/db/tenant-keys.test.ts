/**
 * The gap to sharding by clinic (docs/operations.md, "The path past one primary"), kept true.
 *
 * Sharded by clinic (Citus with `clinic_id` as the distribution column, or cells of clinics
 * each on a primary of its own), a table's primary key, unique constraints and exclusion
 * constraints must include `clinic_id`: each shard checks them for its own rows only. And a
 * row of a clinic must say its clinic, so that it lives on its clinic's shard. The schema does
 * not yet do either everywhere: this test lists, from the catalog of the migrated database,
 *   - every table with `clinic_id` (a tenant table) with a key or exclusion constraint without it;
 *   - every table without `clinic_id` that references a tenant table (a clinic's rows that do not
 *     say their clinic);
 *   - every other table without `clinic_id` (global: kept whole on every shard or in one place);
 * and compares each list with the one below. A new gap fails, and so does a gap closed and not
 * struck off: the list stays the gap, and a new table has to be placed in it on purpose.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { openTestContext } from '../helpers/server.js';

/** The uuid of the row alone: unique across clinics by construction, but a shard cannot check it. */
const ID_ONLY = 'primary key on id alone';
/** The same, with the time the table is partitioned by (docs/operations.md, "Partitioned tables"). */
const ID_AND_TIME = 'primary key on id and the time of the row (the partition key) alone';

/** Tenant tables' keys without clinic_id: `table.index`, and why it is so. */
const KEY_GAPS: Record<string, string> = {
  'access_log.access_log_pkey': ID_AND_TIME,
  'access_log_resources.access_log_resources_pkey': 'primary key on the hash of the list of resources alone',
  'api_keys.api_keys_pkey': ID_ONLY,
  'api_keys.api_keys_token_hash_key': 'a key is found by its token before its clinic is known: a global lookup table once sharded',
  'appointments.appointments_chair_overlap': 'no two bookings of a chair overlap: the chair is the clinic’s, clinic_id not in the constraint',
  'appointments.appointments_doctor_overlap': 'no two bookings of a doctor overlap: the doctor is the clinic’s, clinic_id not in the constraint',
  'appointments.appointments_pkey': ID_ONLY,
  'calendars.calendars_pkey': ID_ONLY,
  'calls.calls_pkey': ID_ONLY,
  'chairs.chairs_pkey': ID_ONLY,
  'chat_messages.chat_messages_pkey': ID_ONLY,
  'confirmation_attempts.confirmation_attempts_pkey': ID_ONLY,
  'conversations.conversations_pkey': ID_ONLY,
  'doctors.doctors_pkey': ID_ONLY,
  'documents.documents_pkey': ID_ONLY,
  'events.events_pkey': ID_AND_TIME,
  'facilities.facilities_pkey': ID_ONLY,
  'installments.installments_payment_plan_id_seq_key': 'an instalment’s number within its plan: the plan is the clinic’s',
  'installments.installments_pkey': ID_ONLY,
  'invoice_lines.invoice_lines_pkey': ID_ONLY,
  'invoices.invoices_pkey': ID_ONLY,
  'lead_activities.lead_activities_pkey': ID_ONLY,
  'leads.leads_pkey': ID_ONLY,
  'patients.patients_pkey': ID_ONLY,
  'payment_plans.payment_plans_pkey': ID_ONLY,
  'payments.payments_pkey': ID_ONLY,
  'recall_attempts.recall_attempts_pkey': ID_ONLY,
  'slot_holds.slot_holds_pkey': ID_ONLY,
  'staff_profiles.staff_profiles_pkey': ID_ONLY,
  'tasks.tasks_pkey': ID_ONLY,
  'treatment_plan_items.treatment_plan_items_pkey': ID_ONLY,
  'treatment_plans.treatment_plans_pkey': ID_ONLY,
  'voice_handoffs.voice_handoffs_pkey': ID_ONLY,
  'waitlist_entries.waitlist_entries_pkey': ID_ONLY,
  'waitlist_offers.waitlist_offers_pkey': ID_ONLY,
  'webhook_deliveries.webhook_deliveries_pkey': ID_ONLY,
  'webhook_endpoints.webhook_endpoints_pkey': ID_ONLY,
};

/** Tables without clinic_id that reference a tenant table: a clinic's rows that do not say their clinic. */
const CHILD_TABLES: Record<string, string> = {
  webhook_attempts: 'a delivery’s attempts, reached through webhook_deliveries.clinic_id',
};

/** Tables without clinic_id and of no clinic: kept whole (a reference table on every shard, or one place). */
const GLOBAL_TABLES: Record<string, string> = {
  clinics: 'the tenants themselves: their id is the distribution value',
  organizations: 'groups of clinics, above the tenants',
  schema_migrations: 'the schema’s version, the same on every shard',
  server_settings: 'the service’s own secrets (cursor signing)',
  webhook_polling: 'one row: until when workers poll for due deliveries',
};

let ctx: AppContext;
let drop: () => Promise<void>;
beforeAll(async () => {
  ({ ctx, drop } = await openTestContext(testConfig()));
});
afterAll(() => drop());

interface TableRow {
  name: string;
  tenant: boolean;
  references_tenant: boolean;
}

/** The public schema's tables (partitions left out: they follow their parent). */
async function tables(): Promise<TableRow[]> {
  const { rows } = await sql<TableRow>`
    WITH t AS (
      SELECT c.oid, c.relname AS name,
             EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'clinic_id' AND NOT a.attisdropped AND a.attnum > 0) AS tenant
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
    )
    SELECT t.name, t.tenant,
           EXISTS (SELECT 1 FROM pg_constraint f JOIN t r ON r.oid = f.confrelid WHERE f.conrelid = t.oid AND f.contype = 'f' AND r.tenant) AS references_tenant
    FROM t ORDER BY t.name`.execute(ctx.db);
  return rows;
}

describe('what sharding by clinic would need of the schema', () => {
  it('lists every key, unique or exclusion constraint of a tenant table without clinic_id: the known gaps, no more, no fewer', async () => {
    // pg_index holds primary keys, unique constraints, unique indexes (partial ones too) and exclusion constraints.
    const { rows } = await sql<{ entry: string }>`
      SELECT c.relname || '.' || ic.relname AS entry
      FROM pg_index i
      JOIN pg_class c ON c.oid = i.indrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_class ic ON ic.oid = i.indexrelid
      WHERE n.nspname = 'public' AND (i.indisunique OR i.indisexclusion) AND NOT c.relispartition
        AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'clinic_id' AND NOT a.attisdropped AND a.attnum > 0)
        AND NOT EXISTS (
          SELECT 1 FROM unnest(i.indkey) k JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k WHERE a.attname = 'clinic_id'
        )
      ORDER BY 1`.execute(ctx.db);
    expect(rows.map((r) => r.entry).sort()).toEqual(Object.keys(KEY_GAPS).sort());
  });

  it('places every table without clinic_id: a clinic’s rows that do not say their clinic, or global', async () => {
    const rows = await tables();
    expect(
      rows
        .filter((t) => !t.tenant && t.references_tenant)
        .map((t) => t.name)
        .sort(),
    ).toEqual(Object.keys(CHILD_TABLES).sort());
    expect(
      rows
        .filter((t) => !t.tenant && !t.references_tenant)
        .map((t) => t.name)
        .sort(),
    ).toEqual(Object.keys(GLOBAL_TABLES).sort());
  });

  it('knows the tenant tables by their clinic_id: at least the ones the lists name', async () => {
    // A guard on the catalog query itself: were it to find nothing, both lists above could not be checked.
    const tenant = new Set((await tables()).filter((t) => t.tenant).map((t) => t.name));
    for (const entry of Object.keys(KEY_GAPS)) expect(tenant, entry).toContain(entry.split('.')[0]);
    expect(tenant).toContain('idempotency_keys');
  });
});
