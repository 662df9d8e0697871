/**
 * The leads' store: every statement of creation (with the round-trip tuning of POST /leads:
 * one statement where there were several), activities, changes and conversion. It answers in outcomes; the rules and their
 * errors are service.ts's.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Insertable } from 'kysely';
import { insertWhere } from '../../db/insert.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { LeadsTable } from '../../db/tables/core.js';
import { facilityVisible, type TenantScope } from '../../db/tenant.js';
import { prepared } from '../../db/prepared-statements.js';
import { commitCheck, lastStatement, withCommitInLast } from '../../db/then-commit.js';
import { assertSameEventData, recordEvent, recordEventIn } from '../../events/record.js';
import type { ActorLogger } from '../../core/actor.js';
import type { ActivityView, LeadInput } from './schema.js';
import { eventData, type LeadRow } from './view.js';

/**
 * The oldest lead the scope sees with this phone or this email (at least one given): one lookup
 * per contact naming every column of its index, joined by UNION ALL. The creation's statement is
 * prepared (src/db/prepared-statements.ts): with `phone = … OR lower(email) = …` its plan made
 * without the values read the clinic's leads by one index and filtered them (in bench:api, POST
 * /leads cost PostgreSQL several times the CPU a lead).
 */
function existingQuery(trx: Transaction, scope: TenantScope, phone: string | null, email: string | null) {
  const visible = trx.selectFrom('leads').selectAll().where('clinic_id', '=', scope.clinicId).where(facilityVisible('facility_id', scope));
  const byPhone = phone ? visible.where('phone', '=', phone) : null;
  const byEmail = email ? visible.where(sql`lower(email)`, '=', email) : null;
  const found = byPhone && byEmail ? byPhone.unionAll(byEmail) : (byPhone ?? byEmail ?? visible.where(sql<boolean>`false`));
  return trx.selectFrom(found.as('found')).selectAll().orderBy('created_at').orderBy('id').limit(1);
}

/** What a new lead is, checked: its contacts canonical (phone E.164, email lower-cased for the search). */
interface LeadDraft {
  input: LeadInput;
  facilityId: string | null;
  phone: string | null;
  email: string | null;
}

type LeadCreation = { kind: 'created'; row: LeadRow } | { kind: 'existing'; row: LeadRow };

/**
 * Creates a lead in the caller's transaction, or finds the existing one the scope sees with the
 * same phone or email (nothing written). Concurrent creations of the same phone or email wait
 * for each other (advisory locks, taken in one statement, in sorted order), so they end in one
 * lead. Then one statement looks for the existing lead and inserts the new one only when there
 * is none: it starts after the locks, so it sees what their previous holders committed.
 *
 * `commits`: the insert's statement is the transaction's last and carries its COMMIT
 * (src/db/then-commit.ts): a lead found (nothing written) commits nothing; an event not inserted
 * at once (a gap to record first) refuses the COMMIT, and withCommitInLast runs the creation
 * again without it.
 */
export async function insertLead(
  trx: Transaction,
  scope: TenantScope,
  log: ActorLogger | undefined,
  { input, facilityId, phone, email }: LeadDraft,
  { commits }: { commits: boolean },
): Promise<LeadCreation> {
  const clinicId = scope.clinicId;
  const lockKeys = [phone && `${clinicId}:lead:phone:${phone}`, email && `${clinicId}:lead:email:${email}`].filter(Boolean).sort() as string[];
  if (lockKeys.length > 0) await prepared(sql`SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest(${lockKeys}::text[]) AS k`).execute(trx);
  const now = new Date();
  const created = {
    id: randomUUID(),
    facility_id: facilityId,
    source: input.source ?? null,
    status: input.status ?? 'new',
    assigned_to: input.assignedTo?.toLowerCase() ?? null,
    created_at: now,
    updated_at: now,
  };
  const values: Insertable<LeadsTable> = {
    ...created,
    clinic_id: clinicId,
    first_name: input.firstName,
    last_name: input.lastName ?? null,
    email: input.email ?? null,
    phone,
    source_detail: input.sourceDetail ?? null,
    estimated_value: input.estimatedValue ?? null,
    notes: input.notes ?? null,
    next_follow_up_at: input.nextFollowUpAt ? new Date(input.nextFollowUpAt) : null,
  };
  const event = { log, clinicId, type: 'lead.created', facilityId, data: eventData({ ...created, converted_patient_id: null }) } as const;
  let row: LeadRow;
  if (!phone && !email) {
    row = await trx.insertInto('leads').values(values).returningAll().executeTakeFirstOrThrow();
    await recordEvent(trx, event);
  } else {
    // The insert's own statement records the event, only when it inserts (recordEventIn).
    const recording = recordEventIn(trx, event);
    type Answer = LeadRow & { created: boolean; event_outcome: string | null };
    const ctes = sql`
      WITH existing AS (${existingQuery(trx, scope, phone, email)}),
      inserted AS (${insertWhere('leads', values, sql`NOT EXISTS (SELECT 1 FROM existing)`)})`;
    const answer = sql`
      SELECT *, true AS created, ${recording.call} AS event_outcome FROM inserted
      UNION ALL SELECT *, false AS created, NULL AS event_outcome FROM existing`;
    const checks = [commitCheck<Answer>('event', { when: sql`answer.created AND answer.event_outcome <> 'inserted'` })];
    const last = lastStatement<Answer, (typeof checks)[number]>(ctes, answer, { commits, checks });
    const { rows } = last.read((await prepared(last.statement).execute(trx)).rows);
    const { created: inserted, event_outcome, ...found } = rows[0]!;
    if (!inserted) return { kind: 'existing', row: found };
    row = found;
    await recording.settle(trx, event_outcome!);
  }
  assertSameEventData('lead.created', event.data, () => eventData(row));
  return { kind: 'created', row };
}

/** A transaction whose last statement carries its COMMIT; run again the usual way where that statement refused (src/db/then-commit.ts). */
export function inCreationTransaction<T>(db: Db, run: (trx: Transaction, commits: boolean) => Promise<T>): Promise<T> {
  return withCommitInLast((commits) => db.transaction().execute((trx) => run(trx, commits)));
}

export async function activitiesOf(trx: Db, leadId: string): Promise<ActivityView[]> {
  const rows = await trx.selectFrom('lead_activities').selectAll().where('lead_id', '=', leadId).orderBy('at').orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, kind: r.kind, body: r.body, at: r.at.toISOString() }));
}

/** Adds an activity and, for a contact, moves the lead's `last_contacted_at` forward, in one statement. */
export async function insertActivity(
  trx: Transaction,
  clinicId: string,
  lead: Pick<LeadRow, 'id'>,
  activity: { id: string; kind: string; body: string; at: Date },
  contact: boolean,
): Promise<void> {
  const { id, kind, body, at } = activity;
  await prepared(sql`WITH activity AS (${trx.insertInto('lead_activities').values({ id, clinic_id: clinicId, lead_id: lead.id, kind, body, at })})
    ${
      contact
        ? sql`, contacted AS (${trx
            .updateTable('leads')
            .set({ last_contacted_at: sql`greatest(last_contacted_at, ${at}::timestamptz)`, updated_at: new Date(), version: sql`version + 1` })
            .where('id', '=', lead.id)})`
        : sql``
    }
    SELECT 1`).execute(trx);
}

export async function updateLeadRow(trx: Transaction, id: string, set: Record<string, unknown>): Promise<LeadRow> {
  return trx
    .updateTable('leads')
    .set({ ...set, updated_at: new Date(), version: sql`version + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A patient of the clinic a lead may be linked to (erased ones included: the service refuses them). */
export async function patientToLink(trx: Transaction, clinicId: string, patientId: string): Promise<{ id: string; erased_at: Date | null } | undefined> {
  return trx.selectFrom('patients').select(['id', 'erased_at']).where('id', '=', patientId).where('clinic_id', '=', clinicId).executeTakeFirst();
}

export async function convertedRow(trx: Transaction, id: string, patientId: string, now: Date): Promise<LeadRow> {
  return trx
    .updateTable('leads')
    .set({ status: 'won', converted_patient_id: patientId, converted_at: now, updated_at: now, version: sql`version + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
