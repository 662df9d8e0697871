/**
 * The SQL of the demo: the mark of its one seed (clinic.ts), and a test clinic's reset
 * (reset.ts): the clinic's row locked, and its data deleted, children before parents. What a reset keeps is listed too, so that a new table
 * with a `clinic_id` must be put in one list or the other (test/cli/demo-reset.test.ts).
 */
import { sql } from 'kysely';
import type { Db, Transaction } from '../db/transaction.js';

/** The mark of the demo's seed (clinic.ts): set once per database, by the first start that claims it. */
const DEMO_MARK = 'demo_seeded';

/** True for the one caller that claims the mark (the demo is then to be seeded); false once it was claimed. */
export async function claimDemoMark(db: Db): Promise<boolean> {
  const claimed = await db
    .insertInto('server_settings')
    .values({ key: DEMO_MARK, value: new Date().toISOString() })
    .onConflict((oc) => oc.column('key').doNothing())
    .returning('key')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** Deleted by a reset, in this order (each table after every table that references it). */
export const RESET_TABLES = [
  'confirmation_due_marks',
  'confirmation_attempts',
  'appointment_confirmations',
  'confirmation_contacts',
  'waitlist_offers',
  'waitlist_entries',
  'recall_attempts',
  'recall_worklist',
  'recall_contacts',
  'document_link_uses',
  'documents',
  'payment_allocations',
  'payments',
  'invoice_lines',
  'invoices',
  'installments',
  'payment_plans',
  'treatment_plan_items',
  'treatment_plans',
  'billing_counters',
  'voice_handoffs',
  'slot_holds',
  'chat_messages',
  'conversations',
  'tasks',
  'lead_activities',
  'calls',
  'appointments',
  'leads',
  'calendars',
  'patients',
  'patient_name_terms',
  'patient_name_keys',
  'doctors',
  'chairs',
  'staff_profiles',
  'idempotency_keys',
  'tool_call_writes',
] as const;

/**
 * Kept by a reset: the clinic, its facilities (keys and destinations may be limited to them),
 * its API keys and webhook destinations, its settings (the waitlist's offer time, the recall
 * and confirmation rules), and its history (events, deliveries, the access log).
 */
export const KEPT_TABLES = [
  'clinics',
  'waitlist_settings',
  'recall_rules',
  'confirmation_rules',
  'facilities',
  'api_keys',
  'webhook_endpoints',
  'webhook_deliveries',
  'events',
  'event_gaps',
  'access_log',
  'access_log_resources',
  'access_log_entries',
] as const;

type ResetLock = { outcome: 'absent' } | { outcome: 'live' } | { outcome: 'locked'; facilityIds: string[] };

/** The clinic's row, locked until the transaction ends (two resets of a clinic wait for each other), and its facilities, oldest first. */
export async function lockClinic(trx: Transaction, clinicId: string): Promise<ResetLock> {
  const clinic = await trx.selectFrom('clinics').select('mode').where('id', '=', clinicId).forUpdate().executeTakeFirst();
  if (!clinic) return { outcome: 'absent' };
  if (clinic.mode !== 'test') return { outcome: 'live' };
  const facilities = await trx.selectFrom('facilities').select('id').where('clinic_id', '=', clinicId).orderBy('created_at').orderBy('id').execute();
  return { outcome: 'locked', facilityIds: facilities.map((f) => f.id) };
}

/** Deletes the clinic's rows of every RESET_TABLES table; how many per table. */
export async function deleteClinicData(trx: Transaction, clinicId: string): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const table of RESET_TABLES) {
    const result = await sql`DELETE FROM ${sql.table(table)} WHERE clinic_id = ${clinicId}`.execute(trx);
    deleted[table] = Number(result.numAffectedRows ?? 0);
  }
  return deleted;
}
