/**
 * The calls' store: the registration's insert (idempotent on the provider's call id, with the
 * patient's lookup by number in the same statement: one round trip fewer) and the link to a lead. It answers
 * in outcomes; the rules and their errors are service.ts's.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Transaction } from '../../db/transaction.js';
import type { TenantScope } from '../../db/tenant.js';
import type { CallsTable } from '../../db/tables/people.js';
import { prepared } from '../../db/prepared-statements.js';
import { patientByPhoneQuery } from '../patients/index.js';
import type { CallInput } from './schema.js';

export type CallRow = Selectable<CallsTable>;

/** A call checked: its numbers canonical (or `anonymous`), its facility, patient and lead. */
interface CallDraft {
  input: CallInput;
  from: string;
  to: string;
  facilityId: string | null;
  patientId: string | null;
  leadId: string | null;
  /** The number whose patient the insert looks up itself (null: none looked up). */
  matchPhone: string | null;
  now: Date;
}

type CallRegistration = { kind: 'created'; row: CallRow } | { kind: 'existing'; row: CallRow };

/**
 * The first registration of an `externalCallId` in the clinic inserts the row; any later one,
 * also concurrent, finds the stored row (the unique index and INSERT ... ON CONFLICT DO NOTHING).
 * With `matchPhone`, the patient with that number is looked up by the insert itself.
 */
export async function insertCall(trx: Transaction, scope: TenantScope, d: CallDraft): Promise<CallRegistration> {
  const { input } = d;
  // Prepared (src/db/prepared-statements.ts): the patient's lookup names its whole index (clinic, phone).
  const { rows } = await prepared(
    trx
      .insertInto('calls')
      .values({
        id: randomUUID(),
        clinic_id: scope.clinicId,
        facility_id: d.facilityId,
        external_call_id: input.externalCallId,
        direction: input.direction,
        from_number: d.from,
        to_number: d.to,
        started_at: input.startedAt ? new Date(input.startedAt) : null,
        duration_seconds: input.durationSeconds ?? null,
        outcome: input.outcome ?? null,
        summary: input.summary ?? null,
        recording_url: input.recordingUrl ?? null,
        transcript: input.transcript ?? null,
        patient_id: d.matchPhone !== null ? sql<string | null>`(${patientByPhoneQuery(trx, scope, d.matchPhone)})` : d.patientId,
        lead_id: d.leadId,
        created_at: d.now,
        updated_at: d.now,
      })
      .onConflict((oc) => oc.columns(['clinic_id', 'external_call_id']).doNothing())
      .returningAll(),
  ).execute(trx);
  if (rows[0]) return { kind: 'created', row: rows[0] };
  const existing = await trx
    .selectFrom('calls')
    .selectAll()
    .where('clinic_id', '=', scope.clinicId)
    .where('external_call_id', '=', input.externalCallId)
    .executeTakeFirstOrThrow();
  return { kind: 'existing', row: existing };
}

export async function linkLead(trx: Transaction, callId: string, leadId: string): Promise<CallRow> {
  return (await prepared(trx.updateTable('calls').set({ lead_id: leadId }).where('id', '=', callId).returningAll()).execute(trx)).rows[0]!;
}
