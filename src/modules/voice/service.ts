/**
 * The voice agent (README.md beside this file): what it needs when the phone rings, and the
 * handoff to a person when it gives up. It answers as little personal data as the job needs.
 */
import type { Actor } from '../../core/actor.js';
import { localReading } from '../../lib/local-reading.js';
import { ApiError } from '../../core/errors.js';
import { checkRefs } from '../../db/scoped.js';
import type { WeekSchedule } from '../../db/tables/agenda.js';
import type { Db, Transaction } from '../../db/transaction.js';
import { toCanonicalPhone } from '../../lib/phone.js';
import { insertTask } from '../tasks/index.js';
import { openingState } from './opening.js';
import { contextQueryIssues, isAnonymous } from './checks.js';
import type { HandoffView, NewHandoff, VoiceContext, VoiceContextQuery } from './schema.js';
import * as store from './store.js';
import type { FacilityRow, HandoffRow } from './store.js';

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

  // One statement (one round trip while the phone rings); the lead is used only when no
  // patient has the number.
  const byPhone = from ?? '';
  const read = await store.callerRead(db, actor, byPhone, now);
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
      closesAtLocal: open.closesAt ? localReading(new Date(open.closesAt), actor.timeZone) : null,
      nextOpeningLocal: open.nextOpening ? localReading(new Date(open.nextOpening), actor.timeZone) : null,
    },
    caller: {
      match: patients.length ? 'patient' : lead ? 'lead' : 'unknown',
      phone: from,
      patients: patients.map((p) => ({
        id: p.id,
        firstName: p.first_name,
        // Read as JSON: the time is a string there.
        nextAppointments: p.upcoming.map((a) => {
          const start = new Date(a.start_at);
          return { id: a.id, start: start.toISOString(), calendarName: a.calendar_name, ...localReading(start, actor.timeZone) };
        }),
      })),
      lead: lead ? { id: lead.id, firstName: lead.first_name } : null,
    },
    transfer: { possible: open.openNow && number !== null, number: open.openNow ? number : null },
  };
}

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

/**
 * The agent gives the call up. Open now (by the facility's schedule) with a phone: `transfer`
 * to it. Otherwise a callback task for the clinic (`task.created`) and `callback`. One per
 * call and key: the same `callId` from the same key answers the first handoff again
 * (`created: false`); another key's call ids are its own, so nothing of one key shows to another.
 */
export async function handOff(db: Db, actor: Actor, input: NewHandoff, now = new Date()): Promise<{ view: HandoffView; created: boolean }> {
  const earlier = await store.handoffOf(db, actor, input.callId);
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
      const facility = chooseFacility(await store.visibleFacilities(trx, actor), actor, { preferred });
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
      const row = await store.insertHandoff(trx, {
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
      });
      return { view: handoffView(row), created: true };
    });
  } catch (error) {
    // Two requests for one call at once: the loser answers the winner's handoff.
    const winner = await store.handoffOf(db, actor, input.callId);
    if (winner) return { view: handoffView(winner), created: false };
    throw error;
  }
}
