/**
 * Example: a voice agent answering the clinic phone.
 *
 *   1. look the caller up by phone (lookupPatient);
 *   2. find the free slots of the clinic's calendar (getCalendarAvailability);
 *   3. book the first one (createAppointment, origin `voice`), falling back to the
 *      alternatives of a 409 no_availability when someone took the slot meanwhile;
 *   4. register the finished call (createCall): idempotent on externalCallId, and a number
 *      nobody has becomes a lead with the name the caller said.
 *
 * Run: DCM_BASE_URL=http://127.0.0.1:3000/v1 DCM_API_KEY=dcm_test_… CALENDAR_ID=… \
 *      CALLER_PHONE='333 123 4567' npx tsx examples/voice-agent.ts
 */
import { randomUUID } from 'node:crypto';
import { ApiClientError, createClient, type DentalClinicClient } from '../packages/client/src/index.js';

export const VOICE_AGENT_OPERATIONS = ['lookupPatient', 'getCalendarAvailability', 'createAppointment', 'createCall'] as const;

export interface InboundCall {
  /** The call id at the voice provider. */
  externalCallId: string;
  /** The caller's number, in any format (or `anonymous`). */
  from: string;
  /** The clinic's number that was called. */
  to: string;
  startedAt: string;
  durationSeconds: number;
  /** The name the caller said, used when the number is unknown. */
  caller?: { firstName?: string; lastName?: string };
  /** The calendar the agent books into (configured per clinic). */
  calendarId: string;
  /** Earliest start the caller accepts (default: now). */
  notBefore?: string;
}

export interface VoiceAgentResult {
  patientId: string | null;
  appointment: { id: string; start: string; end: string; status: string } | null;
  call: { id: string; outcome: string | null; leadId: string | null; patientId: string | null };
}

export async function handleInboundCall(api: DentalClinicClient, input: InboundCall): Promise<VoiceAgentResult> {
  await api.ensureOperations(VOICE_AGENT_OPERATIONS);

  // 1. Who is calling? A hidden number cannot be looked up.
  let patientId: string | null = null;
  if (input.from !== 'anonymous') {
    const lookup = await api.call('lookupPatient', { params: { query: { phone: input.from } } });
    patientId = lookup.found && lookup.patient ? lookup.patient.id : null;
  }

  // 2-3. A known patient gets the first free slot.
  let appointment: VoiceAgentResult['appointment'] = null;
  if (patientId) {
    const availability = await api.call('getCalendarAvailability', {
      params: { path: { id: input.calendarId }, query: input.notBefore ? { from: input.notBefore } : {} },
    });
    const candidates: string[] = availability.data.map((slot: { start: string }) => slot.start);
    for (let i = 0; i < 3 && candidates.length > 0 && !appointment; i++) {
      const start = candidates.shift()!;
      try {
        appointment = await api.call('createAppointment', {
          body: { calendarId: input.calendarId, patientId, start, origin: 'voice', type: 'checkup', reason: 'Prenotato al telefono' },
        });
      } catch (error) {
        // Someone booked it meanwhile: the error proposes the nearest free slots.
        if (!(error instanceof ApiClientError) || error.code !== 'no_availability') throw error;
        const alternatives = (error.details?.alternatives ?? []) as { start: string }[];
        candidates.unshift(...alternatives.map((a) => a.start));
      }
    }
  }

  // 4. Register the call. Retrying with the same externalCallId never registers it twice.
  const call = await api.call('createCall', {
    body: {
      externalCallId: input.externalCallId,
      direction: 'inbound',
      from: input.from,
      to: input.to,
      startedAt: input.startedAt,
      durationSeconds: input.durationSeconds,
      outcome: appointment ? 'booked' : patientId ? 'callback' : 'information',
      summary: appointment ? `Prenotato il ${appointment.start}` : 'Nessuna prenotazione',
      ...(patientId ? { patientId } : input.caller ? { caller: input.caller } : {}),
    },
  });
  return { patientId, appointment, call };
}

async function main(): Promise<void> {
  const api = createClient({ baseUrl: process.env.DCM_BASE_URL ?? 'http://127.0.0.1:3000/v1', apiKey: process.env.DCM_API_KEY ?? '' });
  const result = await handleInboundCall(api, {
    externalCallId: process.env.CALL_ID ?? `call-${randomUUID()}`,
    from: process.env.CALLER_PHONE ?? '333 123 4567',
    to: process.env.CLINIC_PHONE ?? '02 1234 5678',
    startedAt: new Date().toISOString(),
    durationSeconds: 95,
    caller: { firstName: 'Mario', lastName: 'Rossi' },
    calendarId: process.env.CALENDAR_ID ?? '',
  });
  console.log(JSON.stringify(result, null, 2));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error) => {
    console.error(error instanceof ApiClientError ? `${error.status} ${error.code}: ${error.message} (${error.requestId})` : error);
    process.exit(1);
  });
}
