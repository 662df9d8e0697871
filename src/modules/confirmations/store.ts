/**
 * The confirmation loop's SQL (README.md beside this file): the rules, the worklist, the
 * attempts and where asking each appointment stands, and the marks of the due events.
 */
import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import type { Actor } from '../../core/actor.js';
import { keysetPage } from '../../db/keyset.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import type { ConfirmationAttemptsTable, ConfirmationRulesTable, ConfirmationStep } from '../../db/tables/confirmations.js';
import { maxLeadMs } from './policy.js';

export type RulesRow = Selectable<ConfirmationRulesTable>;
export type AttemptRow = Selectable<ConfirmationAttemptsTable>;

export interface WorkRow {
  /** The appointment. */
  id: string;
  patient_id: string;
  facility_id: string | null;
  first_name: string | null;
  phone: string | null;
  start_at: Date;
  calendar_id: string | null;
  calendar_name: string | null;
  type: string | null;
  category: string | null;
  first_ask_at: Date;
  attempts: number | null;
  last_attempt_at: Date | null;
  last_outcome: string | null;
}

export async function rulesOf(db: Db, clinicId: string): Promise<RulesRow | null> {
  return (await db.selectFrom('confirmation_rules').selectAll().where('clinic_id', '=', clinicId).executeTakeFirst()) ?? null;
}

export async function saveRules(db: Db, clinicId: string, values: Omit<RulesRow, 'clinic_id' | 'updated_at'>): Promise<RulesRow> {
  const row = { ...values, steps: JSON.stringify(values.steps) };
  return db
    .insertInto('confirmation_rules')
    .values({ clinic_id: clinicId, ...row })
    .onConflict((oc) => oc.column('clinic_id').doUpdateSet({ ...row, updated_at: sql`now()` }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The instant a step asks about appointment `a`: hours before its start, or a local time days before its local date (the clinic's zone `tz`). */
function askAtSql(step: ConfirmationStep, tz: string): RawBuilder<Date> {
  if ('hoursBefore' in step) return sql<Date>`(a.start_at - make_interval(hours => ${step.hoursBefore}::int))`;
  return sql<Date>`((((a.start_at AT TIME ZONE ${tz})::date - ${step.daysBefore}::int) + ${step.at}::time) AT TIME ZONE ${tz})`;
}

/** The first of the steps' asking times. */
const firstAskSql = (steps: readonly ConfirmationStep[], tz: string) => sql<Date>`LEAST(${sql.join(steps.map((s) => askAtSql(s, tz)))})`;

/**
 * The scheduled appointments ahead the rules cover, whose patient may still be asked: the
 * appointment's calendar and category under the rules, the patient active and not erased, not
 * opted out (here or by STOP in chat), the phone not reported wrong (until it changes), asking
 * not closed for the appointment (a reschedule asked for) and its attempts under the limit.
 * The range on `start_at` reads the partial index `appointments_to_confirm_idx`.
 */
function openAppointments(db: Db, clinicId: string, rules: RulesRow, tz: string, horizon: Date) {
  const steps = rules.steps;
  return db
    .selectFrom('appointments as a')
    .innerJoin('patients as p', (j) => j.onRef('p.id', '=', 'a.patient_id').onRef('p.clinic_id', '=', 'a.clinic_id'))
    .leftJoin('calendars as c', (j) => j.onRef('c.id', '=', 'a.calendar_id').onRef('c.clinic_id', '=', 'a.clinic_id'))
    .leftJoin('appointment_confirmations as s', (j) =>
      // The asking of the appointment's present time only: a moved appointment is asked afresh.
      j.onRef('s.clinic_id', '=', 'a.clinic_id').onRef('s.appointment_id', '=', 'a.id').onRef('s.start_at', '=', 'a.start_at'),
    )
    .leftJoin('confirmation_contacts as k', (j) => j.onRef('k.clinic_id', '=', 'a.clinic_id').onRef('k.patient_id', '=', 'a.patient_id'))
    .where('a.clinic_id', '=', clinicId)
    .where('a.status', '=', 'scheduled')
    .where(sql<SqlBool>`a.start_at > now()`)
    .where('a.start_at', '<', new Date(horizon.getTime() + maxLeadMs(steps)))
    .where(sql<SqlBool>`${firstAskSql(steps, tz)} <= ${horizon}`)
    .$if(rules.calendar_ids.length > 0, (q) => q.where(sql<SqlBool>`a.calendar_id = ANY(${rules.calendar_ids}::uuid[])`))
    .$if(rules.categories.length > 0, (q) => q.where(sql<SqlBool>`a.category = ANY(${rules.categories}::text[])`))
    .where(sql<SqlBool>`p.is_active AND p.archived_at IS NULL AND p.erased_at IS NULL`)
    .where(sql<SqlBool>`(k.patient_id IS NULL OR (NOT k.opted_out AND (k.wrong_phone IS NULL OR p.phone IS DISTINCT FROM k.wrong_phone)))`)
    .where(sql<SqlBool>`(s.appointment_id IS NULL OR (NOT s.closed AND s.attempts < ${rules.max_attempts}::int))`)
    .where(sql<SqlBool>`NOT EXISTS (SELECT 1 FROM conversations v WHERE v.clinic_id = a.clinic_id AND v.patient_id = a.patient_id AND v.opted_out)`);
}

/** The worklist: the open appointments first asked before `dueBefore`, soonest first (`asked`: the `dueBefore` sent, null for now). */
export async function workList(
  db: Db,
  actor: Actor,
  rules: RulesRow,
  q: { dueBefore: Date; asked: string | null; facilityId?: string; cursor?: string; limit: number },
): Promise<{ items: WorkRow[]; nextCursor: string | null }> {
  const query = openAppointments(db, actor.clinicId, rules, actor.timeZone, q.dueBefore)
    .where(facilityVisible('a.facility_id', actor))
    .$if(q.facilityId !== undefined, (qb) => qb.where('a.facility_id', '=', q.facilityId!))
    .select([
      'a.id',
      'a.patient_id',
      'a.facility_id',
      'p.first_name',
      'p.phone',
      'a.start_at',
      'a.calendar_id',
      'c.name as calendar_name',
      'a.type',
      'a.category',
      firstAskSql(rules.steps, actor.timeZone).as('first_ask_at'),
      's.attempts',
      's.last_attempt_at',
      's.last_outcome',
    ]);
  return keysetPage(query as never, {
    columns: ['a.start_at', 'a.id'],
    at: (r: WorkRow) => r.start_at,
    secret: actor.cursorSecret,
    // The filters as asked: a page after the first, without dueBefore, reads up to its own now.
    scope: `confirmations:${actor.clinicId}:${JSON.stringify([q.asked, q.facilityId?.toLowerCase() ?? null])}`,
    cursor: q.cursor,
    limit: q.limit,
  }) as Promise<{ items: WorkRow[]; nextCursor: string | null }>;
}

/** The attempt recorded with this externalCallId, if any. */
export async function attemptByCall(trx: Transaction, clinicId: string, externalCallId: string): Promise<AttemptRow | null> {
  const row = await trx
    .selectFrom('confirmation_attempts')
    .selectAll()
    .where('clinic_id', '=', clinicId)
    .where('external_call_id', '=', externalCallId)
    .executeTakeFirst();
  return row ?? null;
}

/** The attempt, or null when a concurrent attempt took its externalCallId (the unique index). */
export async function insertAttempt(
  trx: Transaction,
  clinicId: string,
  values: Omit<AttemptRow, 'id' | 'clinic_id' | 'created_at'>,
): Promise<AttemptRow | null> {
  const { rows } = await sql<AttemptRow>`
    INSERT INTO confirmation_attempts (id, clinic_id, facility_id, appointment_id, patient_id, channel, outcome, task_id, external_call_id, note)
    VALUES (${randomUUID()}, ${clinicId}, ${values.facility_id}, ${values.appointment_id}, ${values.patient_id}, ${values.channel}, ${values.outcome},
      ${values.task_id}, ${values.external_call_id}, ${values.note})
    ON CONFLICT (clinic_id, external_call_id) WHERE external_call_id IS NOT NULL DO NOTHING
    RETURNING *`.execute(trx);
  return rows[0] ?? null;
}

/**
 * Counts the attempt on the appointment at its time `startAt`; `close`: no automatic asking of it
 * any more. The count and the close of an earlier time (before a move) start over.
 */
export async function countAttempt(
  trx: Transaction,
  clinicId: string,
  appointment: { id: string; start_at: Date },
  outcome: string,
  close: boolean,
): Promise<void> {
  await sql`
    INSERT INTO appointment_confirmations AS s (clinic_id, appointment_id, start_at, attempts, last_attempt_at, last_outcome, closed)
    VALUES (${clinicId}, ${appointment.id}, ${appointment.start_at}, 1, now(), ${outcome}, ${close})
    ON CONFLICT (clinic_id, appointment_id) DO UPDATE SET
      attempts = CASE WHEN s.start_at = excluded.start_at THEN s.attempts + 1 ELSE 1 END,
      closed = CASE WHEN s.start_at = excluded.start_at THEN s.closed OR excluded.closed ELSE excluded.closed END,
      start_at = excluded.start_at, last_attempt_at = now(), last_outcome = excluded.last_outcome, updated_at = now()`.execute(trx);
}

/** A patient's refusal of automatic contact, or the phone someone else answered. */
export async function flagContact(
  trx: Transaction,
  clinicId: string,
  patientId: string,
  change: { optedOut: boolean; wrongPhone: string | null },
): Promise<void> {
  await sql`
    INSERT INTO confirmation_contacts (clinic_id, patient_id, opted_out, wrong_phone)
    VALUES (${clinicId}, ${patientId}, ${change.optedOut}, ${change.wrongPhone})
    ON CONFLICT (clinic_id, patient_id) DO UPDATE SET opted_out = confirmation_contacts.opted_out OR excluded.opted_out,
      wrong_phone = coalesce(excluded.wrong_phone, confirmation_contacts.wrong_phone), updated_at = now()`.execute(trx);
}

/** A person says the patient may be asked again: the opt-out and the wrong-phone flag are cleared. */
export async function clearContact(db: Db, clinicId: string, patientId: string): Promise<void> {
  await db.deleteFrom('confirmation_contacts').where('clinic_id', '=', clinicId).where('patient_id', '=', patientId).execute();
}

export async function patientPhone(trx: Transaction, clinicId: string, patientId: string): Promise<string | null> {
  const row = await trx.selectFrom('patients').select('phone').where('clinic_id', '=', clinicId).where('id', '=', patientId).executeTakeFirstOrThrow();
  return row.phone;
}

/** The clinics that set rules, with their rules and time zone (the job's round). */
export async function clinicsWithRules(db: Db): Promise<Array<{ rules: RulesRow; timezone: string }>> {
  const rows = await db.selectFrom('confirmation_rules as r').innerJoin('clinics as c', 'c.id', 'r.clinic_id').selectAll('r').select('c.timezone').execute();
  return rows.map(({ timezone, ...rules }) => ({ rules, timezone }));
}

interface DueRow {
  id: string;
  patient_id: string;
  facility_id: string | null;
  calendar_id: string | null;
  start_at: Date;
  attempts: number | null;
  /** The latest step whose time has come (its index in the rules' steps), and that time. */
  step: number;
  due_at: Date;
}

/**
 * The open appointments (as the worklist reads them, every facility) whose first asking time has
 * come, each with the latest step whose time has come by `now` (of two at the same instant, the
 * later in the rules), by the same asking times as the list (`askAtSql`).
 */
export async function dueNow(trx: Transaction, rules: RulesRow, tz: string, now: Date): Promise<DueRow[]> {
  const asked = sql`(VALUES ${sql.join(rules.steps.map((step, i) => sql`(${i}::int, ${askAtSql(step, tz)})`))}) AS step(i, t)`;
  const latest = sql`FROM ${asked} WHERE step.t <= ${now} ORDER BY step.t DESC, step.i DESC LIMIT 1`;
  return openAppointments(trx, rules.clinic_id, rules, tz, now)
    .select(['a.id', 'a.patient_id', 'a.facility_id', 'a.calendar_id', 'a.start_at', 's.attempts'])
    .select([sql<number>`(SELECT step.i ${latest})`.as('step'), sql<Date>`(SELECT step.t ${latest})`.as('due_at')])
    .orderBy('a.start_at')
    .execute();
}

/**
 * Marks a step of an appointment as announced for the asking time `dueAt`; false when it already
 * was (by this process or another). A step marked for another time (the appointment moved since)
 * is marked anew and announced again.
 */
export async function markDue(trx: Transaction, clinicId: string, appointmentId: string, step: number, dueAt: Date): Promise<boolean> {
  const { rows } = await sql`
    INSERT INTO confirmation_due_marks AS m (clinic_id, appointment_id, step, due_at) VALUES (${clinicId}, ${appointmentId}, ${step}, ${dueAt})
    ON CONFLICT (clinic_id, appointment_id, step) DO UPDATE SET due_at = excluded.due_at, created_at = now() WHERE m.due_at <> excluded.due_at
    RETURNING 1`.execute(trx);
  return rows.length > 0;
}
