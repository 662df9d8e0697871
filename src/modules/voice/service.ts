/**
 * The voice agent (README.md beside this file): what it needs when the phone rings, and the
 * handoff to a person when it gives up. It answers as little personal data as the job needs.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import type { Actor } from '../../core/actor.js';
import { ApiError } from '../../core/errors.js';
import { checkRefs } from '../../db/scoped.js';
import type { VoiceHandoffsTable, WeekSchedule } from '../../db/tables/agenda.js';
import { facilityVisible } from '../../db/tenant.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { toCanonicalPhone } from '../../lib/phone.js';
import { BLOCKING_EXCLUDED } from '../appointments/model.js';
import { insertTask } from '../tasks/service.js';
import { openingState } from './opening.js';
import { contextQueryIssues, isAnonymous } from './checks.js';
import type { HandoffView, NewHandoff, VoiceContext, VoiceContextQuery } from './schema.js';

const MAX_PATIENTS = 5;
const NEXT_APPOINTMENTS = 3;

/** `null` for a hidden number, else the E.164 form (contextQueryIssues has checked it is one). */
function phoneOf(value: string, region: string): string | null {
  return isAnonymous(value) ? null : toCanonicalPhone(value, region);
}

interface FacilityChoice {
  id: string;
  name: string;
  phone: string | null;
  working_schedule: WeekSchedule | null;
}

/** The facilities the actor sees, the main one first, then the oldest. */
function facilitiesQuery(db: Db, actor: Actor) {
  return db
    .selectFrom('facilities')
    .select(['id', 'name', 'phone', 'working_schedule'])
    .where('clinic_id', '=', actor.clinicId)
    .where(facilityVisible('id', actor))
    .orderBy('is_main_location', 'desc')
    .orderBy('created_at')
    .orderBy('id');
}

/** A row of `facilitiesQuery`, read directly or as JSON. */
type FacilityRow = Awaited<ReturnType<ReturnType<typeof facilitiesQuery>['executeTakeFirstOrThrow']>>;

/** The facility of `to` (its phone), else of `preferred`, else the main one the actor sees, else the first. */
function chooseFacility(rows: FacilityRow[], actor: Actor, by: { to?: string | null; preferred?: string | null }): FacilityChoice | null {
  const found =
    (by.to && rows.find((f) => f.phone !== null && toCanonicalPhone(f.phone, actor.region) === by.to)) ||
    (by.preferred && rows.find((f) => f.id === by.preferred)) ||
    rows[0];
  return found ? { id: found.id, name: found.name, phone: found.phone, working_schedule: found.working_schedule as WeekSchedule | null } : null;
}

function transferOf(facility: FacilityChoice | null, actor: Actor, now: Date): { open: ReturnType<typeof openingState>; number: string | null } {
  const open = openingState(facility?.working_schedule ?? null, actor.timeZone, now);
  const number = facility?.phone ? toCanonicalPhone(facility.phone, actor.region) : null;
  return { open, number };
}

export async function voiceContext(db: Db, actor: Actor, input: VoiceContextQuery, now = new Date()): Promise<VoiceContext> {
  const issues = contextQueryIssues(input, actor);
  if (issues.length > 0) throw ApiError.invalid('query', issues);
  const from = phoneOf(input.from, actor.region);
  const to = input.to === undefined ? null : phoneOf(input.to, actor.region);

  // Everything in one statement (one round trip while the phone rings): the clinic's name, the
  // facilities the key sees, the patients with the caller's number and their next
  // appointments, and the lead with it (used only when no patient has the number).
  const byPhone = from ?? '';
  const read = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('clinics').select('name').where('id', '=', actor.clinicId).as('clinic_name'),
      jsonArrayFrom(facilitiesQuery(db, actor)).as('facilities'),
      jsonArrayFrom(
        db
          .selectFrom('patients as p')
          .select(['p.id', 'p.first_name'])
          .select((inner) =>
            jsonArrayFrom(
              inner
                .selectFrom('appointments as a')
                .leftJoin('calendars as c', (j) => j.onRef('c.id', '=', 'a.calendar_id').onRef('c.clinic_id', '=', 'a.clinic_id'))
                .select(['a.id', 'a.start_at', 'c.name as calendar_name'])
                .where('a.clinic_id', '=', actor.clinicId)
                .whereRef('a.patient_id', '=', 'p.id')
                .where(facilityVisible('a.facility_id', actor))
                .where('a.start_at', '>', now)
                .where('a.status', 'not in', [...BLOCKING_EXCLUDED, 'completed', 'checked_in', 'in_progress'])
                .orderBy('a.start_at')
                .orderBy('a.id')
                .limit(NEXT_APPOINTMENTS),
            ).as('upcoming'),
          )
          .where('p.clinic_id', '=', actor.clinicId)
          .where(facilityVisible('p.facility_id', actor))
          .where('p.phone', '=', byPhone)
          .where('p.is_active', '=', true)
          .where('p.erased_at', 'is', null)
          .orderBy('p.updated_at', 'desc')
          .orderBy('p.id')
          .limit(MAX_PATIENTS),
      ).as('patients'),
      jsonObjectFrom(
        db
          .selectFrom('leads')
          .select(['id', 'first_name'])
          .where('clinic_id', '=', actor.clinicId)
          .where(facilityVisible('facility_id', actor))
          .where('phone', '=', byPhone)
          .where('converted_patient_id', 'is', null)
          .orderBy('updated_at', 'desc')
          .orderBy('id')
          .limit(1),
      ).as('lead'),
    ])
    .executeTakeFirstOrThrow();
  const clinic = { name: read.clinic_name ?? '' };
  const facility = chooseFacility(read.facilities, actor, { to });
  const { open, number } = transferOf(facility, actor, now);
  const patients = from ? read.patients : [];
  const lead = from && patients.length === 0 ? read.lead : null;

  return {
    clinic: {
      name: clinic.name,
      timezone: actor.timeZone,
      facilityId: facility?.id ?? null,
      facilityName: facility?.name ?? null,
      ...open,
    },
    caller: {
      match: patients.length ? 'patient' : lead ? 'lead' : 'unknown',
      phone: from,
      patients: patients.map((p) => ({
        id: p.id,
        firstName: p.first_name,
        // Read as JSON: the time is a string there.
        nextAppointments: p.upcoming.map((a) => ({ id: a.id, start: new Date(a.start_at).toISOString(), calendarName: a.calendar_name })),
      })),
      lead: lead ? { id: lead.id, firstName: lead.first_name } : null,
    },
    transfer: { possible: open.openNow && number !== null, number: open.openNow ? number : null },
  };
}

type HandoffRow = Selectable<VoiceHandoffsTable>;

function handoffView(row: HandoffRow): HandoffView {
  return {
    id: row.id,
    callId: row.call_ref,
    reason: row.reason as HandoffView['reason'],
    outcome: row.outcome,
    transferTo: row.transfer_to,
    taskId: row.task_id,
    patientId: row.patient_id,
    leadId: row.lead_id,
    facilityId: row.facility_id,
    createdAt: row.created_at.toISOString(),
  };
}

const REASON_WORDS: Record<NewHandoff['reason'], string> = {
  emergency: 'urgenza',
  patient_request: 'richiesta del paziente',
  billing: 'pagamenti',
  clinical_question: 'domanda clinica',
  not_understood: 'richiesta non compresa',
  other: 'altro',
};

function taskTitle(input: NewHandoff): string {
  const title = `Richiamare (agente vocale, ${REASON_WORDS[input.reason]})${input.summary ? `: ${input.summary}` : ''}`;
  return title.length <= 200 ? title : `${title.slice(0, 199)}…`;
}

async function existingHandoff(db: Db, actor: Actor, callId: string): Promise<HandoffRow | undefined> {
  return db
    .selectFrom('voice_handoffs')
    .selectAll()
    .where('clinic_id', '=', actor.clinicId)
    .where('api_key_id', '=', actor.keyId)
    .where('call_ref', '=', callId)
    .executeTakeFirst();
}

/**
 * The agent gives the call up. Open now (by the facility's schedule) with a phone: `transfer`
 * to it. Otherwise a callback task for the clinic (`task.created`) and `callback`. One per
 * call and key: the same `callId` from the same key answers the first handoff again
 * (`created: false`); another key's call ids are its own, so nothing of one key shows to another.
 */
export async function handOff(db: Db, actor: Actor, input: NewHandoff, now = new Date()): Promise<{ view: HandoffView; created: boolean }> {
  const earlier = await existingHandoff(db, actor, input.callId);
  if (earlier) return { view: handoffView(earlier), created: false };
  try {
    return await db.transaction().execute(async (trx: Transaction) => {
      const { issues, rows } = await checkRefs(trx, actor, [
        { field: 'patientId', table: 'patients', id: input.patientId },
        { field: 'leadId', table: 'leads', id: input.leadId },
        { field: 'facilityId', table: 'facilities', id: input.facilityId },
      ]);
      if (issues.length > 0) throw ApiError.invalid('body', issues);
      const preferred = input.facilityId ?? rows.get('patientId')?.facility_id ?? rows.get('leadId')?.facility_id ?? null;
      const facility = chooseFacility(await facilitiesQuery(trx, actor).execute(), actor, { preferred });
      const { open, number } = transferOf(facility, actor, now);
      const transfer = open.openNow && number !== null;
      const task = transfer
        ? null
        : await insertTask(trx, actor, {
            // The person calling back reads the summary in the task (a task's title never goes into its events).
            title: taskTitle(input),
            patientId: input.patientId ?? null,
            facilityId: facility?.id ?? null,
            type: 'callback',
            // Due when the clinic opens again, so the first person in sees it.
            dueDate: open.nextOpening,
          });
      const row = await trx
        .insertInto('voice_handoffs')
        .values({
          id: randomUUID(),
          clinic_id: actor.clinicId,
          facility_id: facility?.id ?? null,
          api_key_id: actor.keyId,
          call_ref: input.callId,
          reason: input.reason,
          summary: input.summary ?? null,
          patient_id: input.patientId ?? null,
          lead_id: input.leadId ?? null,
          outcome: transfer ? 'transfer' : 'callback',
          transfer_to: transfer ? number : null,
          task_id: task?.id ?? null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { view: handoffView(row), created: true };
    });
  } catch (error) {
    // Two requests for one call at once: the loser answers the winner's handoff.
    const winner = await existingHandoff(db, actor, input.callId);
    if (winner) return { view: handoffView(winner), created: false };
    throw error;
  }
}
