/**
 * The recall worklist (README.md beside this file): the clinic's rules, the due patients in the
 * order to call them, and the attempts whose outcomes move them in the list. Every caller
 * (REST, back office, CLI, the refresh job, agent tools) goes through these functions.
 */
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { findScoped } from '../../db/scoped.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { localReading, localReadingOrNull } from '../../lib/local-reading.js';
import { insertTask } from '../tasks/index.js';
import { nextAttemptAt } from './policy.js';
import { attemptBodyIssues, rulesBodyIssues } from './checks.js';
import {
  SNOOZE_HOURS,
  type NewRecallAttempt,
  type RecallAttemptListQuery,
  type RecallAttemptView,
  type RecallListQuery,
  type RecallOutcome,
  type RecallRules,
  type RecallView,
} from './schema.js';
import * as store from './store.js';
import type { AttemptRow, DueRow, RulesRow } from './store.js';

const HOUR_MS = 3_600_000;

function rulesView(row: RulesRow): RecallRules {
  return {
    categories: row.categories as RecallRules['categories'],
    types: row.types as RecallRules['types'],
    intervalMonths: row.interval_months,
    maxAttemptsPerWeek: row.max_attempts_per_week,
    quietStart: row.quiet_start,
    quietEnd: row.quiet_end,
  };
}

/** The clinic's rules, or null while it has set none (then nobody is due). */
export async function getRecallRules(db: Db, clinicId: string): Promise<RecallRules | null> {
  const row = await store.rulesOf(db, clinicId);
  return row ? rulesView(row) : null;
}

/** Sets the clinic's rules and recomputes its worklist in the same transaction. */
export async function setRecallRules(db: Db, clinicId: string, input: RecallRules): Promise<RecallRules> {
  const issues = rulesBodyIssues(input);
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  return db.transaction().execute(async (trx) => {
    const row = await store.saveRules(trx, clinicId, {
      categories: input.categories,
      types: input.types,
      interval_months: input.intervalMonths,
      max_attempts_per_week: input.maxAttemptsPerWeek,
      quiet_start: input.quietStart,
      quiet_end: input.quietEnd,
    });
    await store.refreshWorklist(trx, clinicId);
    return rulesView(row);
  });
}

/**
 * A visit of this patient was completed, entered as completed, or changed while completed: their
 * worklist row is recomputed in the caller's transaction, so the list shows it at once (an
 * imported history included). The scheduling commands call it for every such write.
 */
export async function refreshPatientRecall(trx: Transaction, clinicId: string, patientId: string): Promise<void> {
  await store.refreshWorklist(trx, clinicId, patientId);
}

/** The periodic job: each clinic's worklist from its completed visits (the list corrects what changed since at read time). */
export async function refreshRecallWorklists(db: Db): Promise<number> {
  let total = 0;
  for (const clinicId of await store.clinicsWithRules(db)) total += await db.transaction().execute((trx) => store.refreshWorklist(trx, clinicId));
  return total;
}

function recallView(row: DueRow, rules: RulesRow, now: Date, tz: string): RecallView {
  const next = nextAttemptAt(
    now,
    tz,
    { maxAttemptsPerWeek: rules.max_attempts_per_week, quietStart: rules.quiet_start, quietEnd: rules.quiet_end },
    (row.recent ?? []).map((d) => new Date(d)),
  );
  return {
    patientId: row.id,
    facilityId: row.facility_id,
    firstName: row.first_name,
    phone: row.phone,
    lastVisitAt: row.last_visit_at.toISOString(),
    due: { category: row.last_category, type: row.last_type },
    dueAt: row.due_at.toISOString(),
    attempts: row.attempts ?? 0,
    lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
    lastOutcome: (row.last_outcome as RecallView['lastOutcome']) ?? null,
    nextAttemptAt: next.toISOString(),
    lastVisitAtLocal: localReading(row.last_visit_at, tz),
    dueAtLocal: localReading(row.due_at, tz),
    lastAttemptAtLocal: localReadingOrNull(row.last_attempt_at, tz),
    nextAttemptAtLocal: localReading(next, tz),
  };
}

/** The due patients, most overdue first, with only what a caller needs. */
export async function listRecalls(db: Db, actor: Actor, q: RecallListQuery): Promise<{ data: RecallView[]; nextCursor: string | null }> {
  const rules = await store.rulesOf(db, actor.clinicId);
  if (!rules) return { data: [], nextCursor: null };
  const now = new Date();
  const page = await store.dueList(db, actor, { ...q, dueBefore: q.dueBefore ? new Date(q.dueBefore) : now, asked: q.dueBefore ?? null });
  return { data: page.items.map((r) => recallView(r, rules, now, actor.timeZone)), nextCursor: page.nextCursor };
}

export function attemptView(row: AttemptRow): RecallAttemptView {
  return {
    id: row.id,
    patientId: row.patient_id,
    channel: row.channel as RecallAttemptView['channel'],
    outcome: row.outcome as RecallOutcome,
    appointmentId: row.appointment_id,
    callbackAt: row.callback_at?.toISOString() ?? null,
    taskId: row.task_id,
    externalCallId: row.external_call_id,
    note: row.note,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * Records an attempt and moves the patient in the list by its outcome: `booked` (until the
 * appointment ends; its future appointment keeps them out after), `no_answer` and `voicemail`
 * (snoozed SNOOZE_HOURS), `callback` (a `recall` task at the time asked, snoozed until then),
 * `declined` (snoozed 90 days), `opted_out` (out until a person clears it), `wrong_number` (out
 * until the patient's phone changes). Once per `externalCallId`: the same call again answers
 * the attempt recorded (`replayed`).
 */
export async function recordAttempt(db: Db, actor: Actor, patientId: string, input: NewRecallAttempt): Promise<{ row: AttemptRow; replayed: boolean }> {
  return db.transaction().execute(async (trx) => {
    await findScoped(trx, 'patients', actor, patientId);
    const patient = await store.patientOf(trx, actor.clinicId, patientId);
    const issues = attemptBodyIssues(input);
    let appointmentEnd: Date | null = null;
    if (input.outcome === 'booked' && input.appointmentId) {
      const appointment = await store.appointmentOfPatient(trx, actor.clinicId, patient.id, input.appointmentId);
      if (!appointment) issues.push({ path: 'appointmentId', message: 'non è un appuntamento di questo paziente' });
      else appointmentEnd = appointment.end_at;
    }
    const callbackAt = input.callbackAt ? new Date(input.callbackAt) : null;
    if (issues.length > 0) throw ApiError.invalid('body', issues);

    const outcome = await store.insertAttempt(trx, actor.clinicId, {
      facility_id: patient.facility_id,
      patient_id: patient.id,
      channel: input.channel,
      outcome: input.outcome,
      appointment_id: input.appointmentId?.toLowerCase() ?? null,
      callback_at: callbackAt,
      task_id: null,
      external_call_id: input.externalCallId ?? null,
      note: input.note ?? null,
    });
    if (outcome.kind === 'replayed') {
      if (outcome.row.patient_id !== patient.id)
        throw ApiError.conflict('external_call_id_used', {}, 'Questa chiamata è già registrata per un altro paziente.');
      return { row: outcome.row, replayed: true };
    }
    let row = outcome.row;
    if (input.outcome === 'callback') {
      const task = await insertTask(trx, actor, {
        title: 'Richiamo: richiamare il paziente',
        type: 'recall',
        dueDate: callbackAt!.toISOString(),
        patientId: patient.id,
      });
      row = await store.attachTask(trx, row.id, task.id);
    }
    await store.recordContact(trx, actor.clinicId, patient.id, {
      outcome: input.outcome,
      snoozedUntil: snoozeUntil(input.outcome, { appointmentEnd, callbackAt }),
      optedOut: input.outcome === 'opted_out',
      wrongPhone: input.outcome === 'wrong_number' ? (patient.phone ?? '') : null,
    });
    return { row, replayed: false };
  });
}

/** Until when an outcome keeps the patient out of the list (null: it does not). */
function snoozeUntil(outcome: RecallOutcome, at: { appointmentEnd: Date | null; callbackAt: Date | null }): Date | null {
  switch (outcome) {
    case 'booked':
      return at.appointmentEnd;
    case 'callback':
      return at.callbackAt;
    case 'no_answer':
    case 'voicemail':
    case 'declined':
      return new Date(Date.now() + SNOOZE_HOURS[outcome] * HOUR_MS);
    case 'wrong_number':
    case 'opted_out':
      return null;
  }
}

export async function listAttempts(
  db: Db,
  actor: Actor,
  patientId: string,
  q: RecallAttemptListQuery,
): Promise<{ data: RecallAttemptView[]; nextCursor: string | null }> {
  await findScoped(db, 'patients', actor, patientId);
  const page = await store.listAttempts(db, actor, patientId, q);
  return { data: page.items.map(attemptView), nextCursor: page.nextCursor };
}

/** A person says the patient may be contacted again (back office, CLI). */
export async function clearRecallOptOut(db: Db, actor: Actor, patientId: string): Promise<void> {
  await findScoped(db, 'patients', actor, patientId);
  await store.clearOptOut(db, actor.clinicId, patientId);
}
