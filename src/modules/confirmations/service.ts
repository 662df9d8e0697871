/**
 * The confirmation loop (README.md beside this file): the clinic's rules, the appointments
 * waiting for their patient's confirmation soonest first, and the attempts whose outcomes
 * confirm, cancel or hand an appointment to the clinic. Every caller (REST, back office, CLI,
 * agent tools) goes through these functions.
 */
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import type { Db } from '../../db/transaction.js';
import { localReading } from '../../lib/local-reading.js';
import { findScoped } from '../../db/scoped.js';
import { lockAppointment, type AppointmentRow } from '../appointments/index.js';
import { cancelLocked, confirmLocked } from '../scheduling/index.js';
import { insertTask } from '../tasks/index.js';
import { rulesBodyIssues } from './checks.js';
import { nextAttemptAt } from './policy.js';
import {
  ANSWERABLE_STATUSES,
  type ConfirmationAttemptView,
  type ConfirmationListQuery,
  type ConfirmationOutcome,
  type ConfirmationRules,
  type ConfirmationView,
  type NewConfirmationAttempt,
} from './schema.js';
import * as store from './store.js';
import type { AttemptRow, RulesRow, WorkRow } from './store.js';

function rulesView(row: RulesRow): ConfirmationRules {
  return {
    steps: row.steps,
    calendarIds: row.calendar_ids,
    categories: row.categories as ConfirmationRules['categories'],
    channels: row.channels as ConfirmationRules['channels'],
    maxAttempts: row.max_attempts,
    retryAfterMinutes: row.retry_after_minutes,
    quietStart: row.quiet_start,
    quietEnd: row.quiet_end,
  };
}

/** The clinic's rules, or null while it has set none (then nobody is asked). */
export async function getConfirmationRules(db: Db, clinicId: string): Promise<ConfirmationRules | null> {
  const row = await store.rulesOf(db, clinicId);
  return row ? rulesView(row) : null;
}

/** Sets the clinic's rules; the list reads them at once (nothing is precomputed). */
export async function setConfirmationRules(db: Db, clinicId: string, input: ConfirmationRules): Promise<ConfirmationRules> {
  const issues = rulesBodyIssues(input);
  if (issues.length > 0) throw ApiError.invalid('body', issues);
  const row = await store.saveRules(db, clinicId, {
    // One form per step, kept as sent (the checks refused a mixed one).
    steps: input.steps.map((s) => (s.hoursBefore !== undefined ? { hoursBefore: s.hoursBefore } : { daysBefore: s.daysBefore!, at: s.at! })),
    calendar_ids: input.calendarIds.map((id) => id.toLowerCase()),
    categories: input.categories,
    channels: input.channels,
    max_attempts: input.maxAttempts,
    retry_after_minutes: input.retryAfterMinutes,
    quiet_start: input.quietStart,
    quiet_end: input.quietEnd,
  });
  return rulesView(row);
}

function workView(row: WorkRow, rules: RulesRow, now: Date, tz: string): ConfirmationView {
  const next = nextAttemptAt(
    now,
    tz,
    { retryAfterMinutes: rules.retry_after_minutes, quietStart: rules.quiet_start, quietEnd: rules.quiet_end },
    new Date(row.first_ask_at),
    row.last_attempt_at,
  );
  return {
    appointmentId: row.id,
    patientId: row.patient_id,
    facilityId: row.facility_id,
    firstName: row.first_name,
    phone: row.phone,
    start: row.start_at.toISOString(),
    ...localReading(row.start_at, tz),
    service: { calendarId: row.calendar_id, name: row.calendar_name, type: row.type, category: row.category },
    channels: rules.channels as ConfirmationView['channels'],
    attempts: row.attempts ?? 0,
    lastOutcome: (row.last_outcome as ConfirmationView['lastOutcome']) ?? null,
    nextAttemptAt: next.toISOString(),
    nextAttemptAtLocal: localReading(next, tz),
  };
}

/** The appointments waiting for their confirmation, soonest first, with only what a caller needs. */
export async function listConfirmations(db: Db, actor: Actor, q: ConfirmationListQuery): Promise<{ data: ConfirmationView[]; nextCursor: string | null }> {
  const rules = await store.rulesOf(db, actor.clinicId);
  if (!rules) return { data: [], nextCursor: null };
  const now = new Date();
  const page = await store.workList(db, actor, rules, {
    ...q,
    dueBefore: q.dueBefore ? new Date(q.dueBefore) : now,
    asked: q.dueBefore ? new Date(q.dueBefore).toISOString() : null,
  });
  return { data: page.items.map((r) => workView(r, rules, now, actor.timeZone)), nextCursor: page.nextCursor };
}

function attemptView(row: AttemptRow, appointmentStatus: string): ConfirmationAttemptView {
  return {
    id: row.id,
    appointmentId: row.appointment_id,
    patientId: row.patient_id,
    channel: row.channel as ConfirmationAttemptView['channel'],
    outcome: row.outcome as ConfirmationOutcome,
    appointmentStatus,
    taskId: row.task_id,
    externalCallId: row.external_call_id,
    note: row.note,
    createdAt: row.created_at.toISOString(),
  };
}

const externalCallIdUsed = () =>
  ApiError.conflict('external_call_id_used', {}, 'Questa chiamata o questo messaggio è già registrato per un altro appuntamento.');

/**
 * Records a patient's answer, and applies it in the same transaction, the appointment locked
 * first (two channels answering at once, or an answer and a cancel, take their turns):
 * `confirmed` (status `confirmed`, `appointment.confirmed`; already confirmed: unchanged),
 * `cancel_requested` (cancelled as a plain cancel: `appointment.cancelled`, the time free and
 * offered to the waitlist), `reschedule_requested` (a `confirmation` task for the clinic, and no
 * more automatic asking: the time stays the patient's until a move), `no_answer` and
 * `voicemail` (counted; asked again after the rules' delay, up to their attempts),
 * `wrong_number` (the phone flagged: out of the list until the patient's phone changes),
 * `opted_out` (no automatic asking until a person clears it). Once per `externalCallId`:
 * the same id again answers the attempt recorded (`replayed`), for another appointment `409`.
 */
export async function recordConfirmationAttempt(
  db: Db,
  actor: Actor,
  appointmentId: string,
  input: NewConfirmationAttempt,
): Promise<{ attempt: ConfirmationAttemptView; replayed: boolean }> {
  return db.transaction().execute(async (trx) => {
    let current: AppointmentRow = await lockAppointment(trx, actor, appointmentId);
    if (input.externalCallId !== undefined) {
      const seen = await store.attemptByCall(trx, actor.clinicId, input.externalCallId);
      if (seen) {
        if (seen.appointment_id !== current.id) throw externalCallIdUsed();
        return { attempt: attemptView(seen, current.status), replayed: true };
      }
    }
    if (!(ANSWERABLE_STATUSES as readonly string[]).includes(current.status) || current.start_at.getTime() <= Date.now()) {
      throw ApiError.conflict('not_answerable', { status: current.status }, 'L’appuntamento è già passato, annullato o chiuso: la risposta non lo cambia.');
    }
    let taskId: string | null = null;
    switch (input.outcome) {
      case 'confirmed':
        if (current.status !== 'confirmed') current = await confirmLocked(trx, actor, current);
        break;
      case 'cancel_requested':
        current = await cancelLocked(trx, actor, current);
        break;
      case 'reschedule_requested':
        taskId = (
          await insertTask(trx, actor, {
            title: 'Conferma: il paziente chiede di spostare l’appuntamento',
            type: 'confirmation',
            dueDate: new Date().toISOString(),
            patientId: current.patient_id,
          })
        ).id;
        break;
      case 'wrong_number':
        await store.flagContact(trx, actor.clinicId, current.patient_id, {
          optedOut: false,
          wrongPhone: (await store.patientPhone(trx, actor.clinicId, current.patient_id)) ?? '',
        });
        break;
      case 'opted_out':
        await store.flagContact(trx, actor.clinicId, current.patient_id, { optedOut: true, wrongPhone: null });
        break;
      case 'no_answer':
      case 'voicemail':
        break;
    }
    const row = await store.insertAttempt(trx, actor.clinicId, {
      facility_id: current.facility_id,
      appointment_id: current.id,
      patient_id: current.patient_id,
      channel: input.channel,
      outcome: input.outcome,
      task_id: taskId,
      external_call_id: input.externalCallId ?? null,
      note: input.note ?? null,
    });
    // Another appointment's answer took the id meanwhile: this one rolls back whole.
    if (!row) throw externalCallIdUsed();
    await store.countAttempt(trx, actor.clinicId, current, input.outcome, input.outcome === 'reschedule_requested');
    return { attempt: attemptView(row, current.status), replayed: false };
  });
}

/** A person says the patient may be asked again (back office, CLI): clears an opt-out and a wrong-phone flag. */
export async function clearConfirmationOptOut(db: Db, actor: Actor, patientId: string): Promise<void> {
  await findScoped(db, 'patients', actor, patientId);
  await store.clearContact(db, actor.clinicId, patientId);
}
