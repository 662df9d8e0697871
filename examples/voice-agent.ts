/**
 * Example: a voice agent answering the clinic phone, a whole call through /v1 with one key,
 * each step one round trip:
 *
 *   1. the phone rings: getVoiceContext (the clinic, open now?, the caller by number);
 *   2. who is calling, confirmed with a second detail the caller says (their date of birth):
 *      searchPatients by the number (or, for an unknown number, the name they say) with
 *      `birthDate`; a name or a number alone never identifies a patient (families share a
 *      phone, strangers have close names), so without `confirmed: true` the agent asks, and
 *      books nothing for anyone it could not confirm;
 *   3. the caller says what they need ("vorrei una pulizia"): listCalendars, matched on keywords;
 *   4. getCalendarAvailability with `spread=day`: three slots on different days, with labels
 *      the agent reads out ("martedì 4 marzo alle 9:30");
 *   5. createSlotHold on the chosen slot while the caller confirms (nobody else can take it);
 *   6. createAppointment with `holdId` (origin `voice` comes from the key);
 *   7. createCall when the call ends (idempotent on externalCallId; an unknown number becomes a lead).
 *
 * Run against the demo clinic of `npm start` (it finds the calendar itself):
 *   DCM_API_KEY=<the voice agent key printed by npm start> npx tsx examples/voice-agent.ts
 * Optional: DCM_BASE_URL (default http://127.0.0.1:3000/v1), CALLER_PHONE, CALLER_NAME,
 * CALLER_BIRTH_DATE (default the demo caller's, 1988-04-12), REQUEST.
 */
import { randomUUID } from 'node:crypto';
import { ApiClientError, createClient, type DentalClinicClient } from '../packages/client/src/index.js';

export const VOICE_AGENT_OPERATIONS = [
  'getVoiceContext',
  'searchPatients',
  'listCalendars',
  'getCalendarAvailability',
  'createSlotHold',
  'createAppointment',
  'createCall',
] as const;

export interface InboundCall {
  /** The call id at the voice provider. */
  externalCallId: string;
  /** The caller's number, in any format (or `anonymous`). */
  from: string;
  /** The clinic's number that was called. */
  to: string;
  startedAt: string;
  durationSeconds: number;
  /** The name the caller said: searched when the number is unknown, and a lead's name otherwise. */
  caller?: { firstName?: string; lastName?: string };
  /** The date of birth the caller said (YYYY-MM-DD), if they already did. */
  birthDate?: string;
  /** Asks the caller a question and returns the answer (null: no answer); the agent asks for the date of birth when it needs it. */
  ask?: (question: string) => Promise<string | null>;
  /** What the caller asked for, matched against the calendars' keywords (default "pulizia"). */
  request?: string;
  /** A calendar to book into; default: the one whose keywords match `request`. */
  calendarId?: string;
  /** Earliest start the caller accepts (default: now). */
  notBefore?: string;
}

export interface VoiceAgentResult {
  patientId: string | null;
  calendar: { id: string; name: string } | null;
  /** What the agent said to offer the slots. */
  offered: string[];
  appointment: { id: string; start: string; end: string; status: string; origin: string } | null;
  call: { id: string; outcome: string | null; leadId: string | null; patientId: string | null };
}

type Calendar = { id: string; name: string; keywords: string[]; active: boolean; bookableBy: string[] };

/** The calendar whose keywords the caller's words contain; else the first the agent may book. */
async function pickCalendar(api: DentalClinicClient, request: string): Promise<Calendar | null> {
  const words = request.toLowerCase();
  const calendars: Calendar[] = [];
  for await (const c of api.paginateOperation('listCalendars', { params: { query: { limit: 200 } } })) calendars.push(c as Calendar);
  const bookable = calendars.filter((c) => c.active && c.bookableBy.includes('voice'));
  return bookable.find((c) => c.keywords.some((k) => words.includes(k))) ?? bookable[0] ?? null;
}

export async function handleInboundCall(api: DentalClinicClient, input: InboundCall): Promise<VoiceAgentResult> {
  await api.ensureOperations(VOICE_AGENT_OPERATIONS);

  // 1. The phone rings: who calls, is the clinic open.
  const context = await api.call('getVoiceContext', { params: { query: { from: input.from, to: input.to } } });

  // 2. Who it is: the patients of the number, or the name the caller says, confirmed by their
  //    date of birth. Without it, or when it matches nobody or several, nobody is confirmed.
  const name = [input.caller?.firstName, input.caller?.lastName].filter(Boolean).join(' ');
  const q = context.caller.patients.length > 0 ? input.from : name;
  let patientId: string | null = null;
  if (q.length >= 2 && (context.caller.patients.length > 0 || context.caller.match === 'unknown')) {
    const birthDate = input.birthDate ?? (await input.ask?.('Per sicurezza, mi può dire la sua data di nascita?')) ?? null;
    if (birthDate && /^\d{4}-\d{2}-\d{2}$/.test(birthDate)) {
      const found = await api.call('searchPatients', { params: { query: { q, birthDate, limit: 3 } } });
      if (found.confirmed) patientId = found.data[0]!.id;
    }
  }

  // 3-6. A known patient: the service they ask for, three days to choose from, hold, book.
  let appointment: VoiceAgentResult['appointment'] = null;
  let calendar: VoiceAgentResult['calendar'] = null;
  const offered: string[] = [];
  if (patientId) {
    const picked = input.calendarId ? { id: input.calendarId, name: input.calendarId } : await pickCalendar(api, input.request ?? 'pulizia');
    if (picked) {
      calendar = { id: picked.id, name: picked.name };
      const availability = await api.call('getCalendarAvailability', {
        params: { path: { id: picked.id }, query: { spread: 'day', limit: 3, ...(input.notBefore ? { from: input.notBefore } : {}) } },
      });
      const slots = availability.data.length > 0 ? availability.data : availability.nextAvailable ? [availability.nextAvailable] : [];
      offered.push(...slots.map((s: { label: string }) => s.label));
      // The caller takes the first one offered; if someone took it meanwhile, the nearest alternative.
      const candidates: string[] = slots.map((s: { start: string }) => s.start);
      for (let i = 0; i < 3 && candidates.length > 0 && !appointment; i++) {
        const start = candidates.shift()!;
        try {
          const hold = await api.call('createSlotHold', {
            params: { path: { id: picked.id } },
            body: { start, holderRef: input.externalCallId, ttlSeconds: 120 },
          });
          appointment = await api.call('createAppointment', { body: { holdId: hold.id, patientId, reason: 'Prenotato al telefono' } });
        } catch (error) {
          if (!(error instanceof ApiClientError) || error.code !== 'no_availability') throw error;
          candidates.unshift(...((error.details?.alternatives ?? []) as { start: string }[]).map((a) => a.start));
        }
      }
    }
  }

  // 7. The call ends: register it. Retrying with the same externalCallId never registers it twice.
  const call = await api.call('createCall', {
    body: {
      externalCallId: input.externalCallId,
      direction: 'inbound',
      from: input.from,
      to: input.to,
      startedAt: input.startedAt,
      durationSeconds: input.durationSeconds,
      outcome: appointment ? 'booked' : patientId ? 'callback' : 'information',
      summary: appointment ? `Prenotato: ${calendar?.name}, ${offered[0] ?? appointment.start}` : 'Nessuna prenotazione',
      ...(patientId ? { patientId } : input.caller ? { caller: input.caller } : {}),
    },
  });
  return { patientId, calendar, offered, appointment, call };
}

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<VoiceAgentResult> {
  const api = createClient({ baseUrl: env.DCM_BASE_URL ?? 'http://127.0.0.1:3000/v1', apiKey: env.DCM_API_KEY ?? '' });
  const [firstName, ...rest] = (env.CALLER_NAME ?? 'Giulia Rossi').split(' ');
  const birthDate = env.CALLER_BIRTH_DATE ?? '1988-04-12';
  return handleInboundCall(api, {
    externalCallId: env.CALL_ID ?? `call-${randomUUID()}`,
    from: env.CALLER_PHONE ?? '333 123 4567',
    to: env.CLINIC_PHONE ?? '02 1234 5678',
    startedAt: new Date().toISOString(),
    durationSeconds: 95,
    caller: { firstName, lastName: rest.join(' ') },
    birthDate,
    request: env.REQUEST ?? 'Buongiorno, vorrei prenotare una pulizia dei denti',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main()
    .then((result) => console.log(JSON.stringify(result, null, 2)))
    .catch((error) => {
      console.error(error instanceof ApiClientError ? `${error.status} ${error.code}: ${error.message} (${error.requestId})` : error);
      process.exit(1);
    });
}
