/**
 * The recall worklist's SQL (README.md beside this file): rules, the precomputed worklist and its
 * refresh, the due list with its corrections at read time, the contact state and the attempts.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable, type SqlBool } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { keysetPage } from '../../db/keyset.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { RecallAttemptsTable, RecallRulesTable } from '../../db/tables/recalls.js';
import type { RecallOutcome } from './schema.js';

export type RulesRow = Selectable<RecallRulesTable>;
export type AttemptRow = Selectable<RecallAttemptsTable>;

export interface DueRow {
  id: string;
  facility_id: string | null;
  first_name: string | null;
  phone: string | null;
  last_visit_at: Date;
  last_category: string | null;
  last_type: string | null;
  due_at: Date;
  attempts: number | null;
  last_attempt_at: Date | null;
  last_outcome: string | null;
  /** The attempts of the last 7 days. */
  recent: Date[] | null;
}

export async function rulesOf(db: Db, clinicId: string): Promise<RulesRow | null> {
  return (await db.selectFrom('recall_rules').selectAll().where('clinic_id', '=', clinicId).executeTakeFirst()) ?? null;
}

export async function saveRules(trx: Transaction, clinicId: string, values: Omit<RulesRow, 'clinic_id' | 'updated_at'>): Promise<RulesRow> {
  return trx
    .insertInto('recall_rules')
    .values({ clinic_id: clinicId, ...values })
    .onConflict((oc) => oc.column('clinic_id').doUpdateSet({ ...values, updated_at: sql`now()` }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A completed or future appointment `a` counts under the rules `r`. */
const qualifies = sql<SqlBool>`(a.category = ANY(r.categories) OR a.type = ANY(r.types))`;

/**
 * Recomputes a clinic's worklist from its completed qualifying visits: one row per patient with
 * the last such visit, due after the rules' interval; rows no longer backed by a visit go.
 * When a patient is due: the start of that visit plus the interval in calendar months, as a
 * clinic counts "every six months" (PostgreSQL's month arithmetic: 15 September + 6 months is
 * 15 March, whatever the days between; 31 August + 6 months is 28 February). The months are
 * added to the UTC wall time, not in the session's time zone: a server set to Europe/Rome would
 * otherwise move a due instant by the hour summer time adds between the two dates. dueList
 * lists the patient once that instant is strictly before `dueBefore`.
 */
export async function refreshWorklist(trx: Transaction, clinicId: string, patientId?: string): Promise<number> {
  // One patient (a visit just completed or changed) or the whole clinic (the rules, the hourly job): the same statement.
  const onePatient = patientId === undefined ? sql`` : sql`AND a.patient_id = ${patientId}`;
  const { rows } = await sql<{ n: number }>`
    WITH fresh AS (
      INSERT INTO recall_worklist (clinic_id, patient_id, last_visit_at, last_category, last_type, due_at, refreshed_at)
      SELECT DISTINCT ON (a.patient_id) a.clinic_id, a.patient_id, a.start_at, a.category, a.type,
        (a.start_at AT TIME ZONE 'UTC' + make_interval(months => r.interval_months)) AT TIME ZONE 'UTC', now()
      FROM appointments a JOIN recall_rules r ON r.clinic_id = a.clinic_id
      WHERE a.clinic_id = ${clinicId} ${onePatient} AND a.status = 'completed' AND ${qualifies}
      ORDER BY a.patient_id, a.start_at DESC
      ON CONFLICT (clinic_id, patient_id) DO UPDATE SET last_visit_at = excluded.last_visit_at, last_category = excluded.last_category,
        last_type = excluded.last_type, due_at = excluded.due_at, refreshed_at = excluded.refreshed_at
        -- A transaction that began earlier (the hourly job) read the visits before a later one's write: it keeps the later row.
        WHERE recall_worklist.refreshed_at <= excluded.refreshed_at
      RETURNING 1)
    SELECT count(*)::int AS n FROM fresh`.execute(trx);
  const stale = patientId === undefined ? sql`` : sql`AND patient_id = ${patientId}`;
  await sql`DELETE FROM recall_worklist WHERE clinic_id = ${clinicId} ${stale} AND refreshed_at < now()::timestamptz(3)`.execute(trx);
  return rows[0]!.n;
}

export async function clinicsWithRules(db: Db): Promise<string[]> {
  return (await db.selectFrom('recall_rules').select('clinic_id').execute()).map((r) => r.clinic_id);
}

/**
 * The due patients, most overdue first: due before `dueBefore`, active, not erased or archived,
 * not opted out (here or by STOP in chat), not snoozed, not on a phone flagged wrong, with no
 * future qualifying appointment and no qualifying visit completed after the one the worklist
 * knows (a refresh would move them later).
 */
export async function dueList(
  db: Db,
  actor: Actor,
  /** `asked`: the `dueBefore` sent, null for now (a later page without it reads up to its own now). */
  q: { dueBefore: Date; asked: string | null; facilityId?: string; cursor?: string; limit: number },
): Promise<{ items: DueRow[]; nextCursor: string | null }> {
  let query = db
    .selectFrom('recall_worklist as w')
    .innerJoin('patients as p', (j) => j.onRef('p.id', '=', 'w.patient_id').onRef('p.clinic_id', '=', 'w.clinic_id'))
    .innerJoin('recall_rules as r', 'r.clinic_id', 'w.clinic_id')
    .leftJoin('recall_contacts as s', (j) => j.onRef('s.clinic_id', '=', 'w.clinic_id').onRef('s.patient_id', '=', 'w.patient_id'))
    .select([
      'w.patient_id as id',
      'p.facility_id',
      'p.first_name',
      'p.phone',
      'w.last_visit_at',
      'w.last_category',
      'w.last_type',
      'w.due_at',
      's.attempts',
      's.last_attempt_at',
      's.last_outcome',
      sql<Date[] | null>`(SELECT array_agg(t.created_at) FROM recall_attempts t
        WHERE t.clinic_id = w.clinic_id AND t.patient_id = w.patient_id AND t.created_at > now() - interval '7 days')`.as('recent'),
    ])
    .where('w.clinic_id', '=', actor.clinicId)
    // Strictly before: a patient due at `dueBefore` itself is not due yet (refreshWorklist says when one is due).
    .where('w.due_at', '<', q.dueBefore)
    .where(facilityVisible('p.facility_id', actor))
    .where(sql<SqlBool>`p.is_active AND p.archived_at IS NULL AND p.erased_at IS NULL`)
    .where(
      sql<SqlBool>`(s.patient_id IS NULL OR (NOT s.opted_out AND (s.snoozed_until IS NULL OR s.snoozed_until <= now())
      AND (s.wrong_phone IS NULL OR p.phone IS DISTINCT FROM s.wrong_phone)))`,
    )
    .where(sql<SqlBool>`NOT EXISTS (SELECT 1 FROM conversations c WHERE c.clinic_id = w.clinic_id AND c.patient_id = w.patient_id AND c.opted_out)`)
    .where(
      sql<SqlBool>`NOT EXISTS (SELECT 1 FROM appointments a WHERE a.clinic_id = w.clinic_id AND a.patient_id = w.patient_id
        AND a.start_at > now() AND a.status NOT IN ('cancelled', 'no_show', 'completed') AND ${qualifies})`,
    )
    .where(
      sql<SqlBool>`NOT EXISTS (SELECT 1 FROM appointments a WHERE a.clinic_id = w.clinic_id AND a.patient_id = w.patient_id
        AND a.start_at > w.last_visit_at AND a.status = 'completed' AND ${qualifies})`,
    );
  if (q.facilityId) query = query.where('p.facility_id', '=', q.facilityId);
  return keysetPage(query as never, {
    columns: ['w.due_at', 'w.patient_id'],
    at: (r: DueRow) => r.due_at,
    secret: actor.cursorSecret,
    scope: `recalls:${actor.clinicId}:${JSON.stringify([q.asked, q.facilityId?.toLowerCase() ?? null])}`,
    cursor: q.cursor,
    limit: q.limit,
  }) as Promise<{ items: DueRow[]; nextCursor: string | null }>;
}

export async function patientOf(trx: Transaction, clinicId: string, id: string): Promise<{ id: string; facility_id: string | null; phone: string | null }> {
  return trx.selectFrom('patients').select(['id', 'facility_id', 'phone']).where('clinic_id', '=', clinicId).where('id', '=', id).executeTakeFirstOrThrow();
}

/** Whether the appointment is this patient's. */
export async function appointmentOfPatient(trx: Transaction, clinicId: string, patientId: string, id: string): Promise<{ end_at: Date } | null> {
  const row = await trx
    .selectFrom('appointments')
    .select('end_at')
    .where('clinic_id', '=', clinicId)
    .where('patient_id', '=', patientId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

type AttemptInsert = Omit<AttemptRow, 'id' | 'clinic_id' | 'created_at'>;

/** The attempt, or the one already recorded with its externalCallId. */
export async function insertAttempt(
  trx: Transaction,
  clinicId: string,
  values: AttemptInsert,
): Promise<{ kind: 'created'; row: AttemptRow } | { kind: 'replayed'; row: AttemptRow }> {
  const { rows } = await sql<AttemptRow>`
    INSERT INTO recall_attempts (id, clinic_id, facility_id, patient_id, channel, outcome, appointment_id, callback_at, task_id, external_call_id, note)
    VALUES (${randomUUID()}, ${clinicId}, ${values.facility_id}, ${values.patient_id}, ${values.channel}, ${values.outcome}, ${values.appointment_id},
      ${values.callback_at}, ${values.task_id}, ${values.external_call_id}, ${values.note})
    ON CONFLICT (clinic_id, external_call_id) WHERE external_call_id IS NOT NULL DO NOTHING
    RETURNING *`.execute(trx);
  if (rows[0]) return { kind: 'created', row: rows[0] };
  const existing = await trx
    .selectFrom('recall_attempts')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('external_call_id', '=', values.external_call_id)
    .executeTakeFirstOrThrow();
  return { kind: 'replayed', row: existing };
}

export async function attachTask(trx: Transaction, attemptId: string, taskId: string): Promise<AttemptRow> {
  return trx.updateTable('recall_attempts').set({ task_id: taskId }).where('id', '=', attemptId).returningAll().executeTakeFirstOrThrow();
}

/** Counts the attempt and applies its outcome to the patient's contact state. */
export async function recordContact(
  trx: Transaction,
  clinicId: string,
  patientId: string,
  change: { outcome: RecallOutcome; snoozedUntil: Date | null; optedOut: boolean; wrongPhone: string | null },
): Promise<void> {
  await sql`
    INSERT INTO recall_contacts (clinic_id, patient_id, snoozed_until, opted_out, wrong_phone, attempts, last_attempt_at, last_outcome)
    VALUES (${clinicId}, ${patientId}, ${change.snoozedUntil}, ${change.optedOut}, ${change.wrongPhone}, 1, now(), ${change.outcome})
    ON CONFLICT (clinic_id, patient_id) DO UPDATE SET
      snoozed_until = excluded.snoozed_until,
      opted_out = recall_contacts.opted_out OR excluded.opted_out,
      wrong_phone = coalesce(excluded.wrong_phone, recall_contacts.wrong_phone),
      attempts = recall_contacts.attempts + 1,
      last_attempt_at = now(), last_outcome = excluded.last_outcome, updated_at = now()`.execute(trx);
}

/** A person says the patient may be contacted again: the opt-out and a wrong-phone flag are cleared. */
export async function clearOptOut(db: Db, clinicId: string, patientId: string): Promise<void> {
  await db
    .updateTable('recall_contacts')
    .set({ opted_out: false, wrong_phone: null, updated_at: sql`now()` })
    .where('clinic_id', '=', clinicId)
    .where('patient_id', '=', patientId)
    .execute();
}

export async function listAttempts(db: Db, actor: Actor, patientId: string, q: { cursor?: string; limit: number }) {
  const query = db.selectFrom('recall_attempts').selectAll().where('clinic_id', '=', actor.clinicId).where('patient_id', '=', patientId);
  return keysetPage(query, {
    columns: ['created_at', 'id'],
    at: (r) => r.created_at,
    secret: actor.cursorSecret,
    scope: `recall-attempts:${actor.clinicId}:${patientId.toLowerCase()}`,
    cursor: q.cursor,
    limit: q.limit,
  });
}
