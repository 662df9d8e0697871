/** The voice agent's context and handoffs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OperationTypes } from '../../../packages/client/src/index.js';
import { refused as rejection, issuePaths } from '../../helpers/refused.js';
import type { Tenant } from '../../helpers/factories.js';
import { intlReading } from '../../lib/reading.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { ALL_DAY, at, insertPatient, makeCalendar } from '../../helpers/seed.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** getVoiceContext through the typed client (`{ data, response }`; throws ApiClientError on a non-2xx answer). */
const context = (token: string, query: OperationTypes['getVoiceContext']['parameters']['query']) =>
  server.api(token).callWithResponse('getVoiceContext', { params: { query } });
const handoff = (token: string, body: OperationTypes['createVoiceHandoff']['requestBody']['content']['application/json']) =>
  server.api(token).callWithResponse('createVoiceHandoff', { body });

async function clinicWith(open: boolean): Promise<Tenant> {
  const t = await server.factories.tenant();
  for (const [i, id] of t.facilityIds.entries()) {
    const res = await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/facilities/${id}`, {
      phone: i === 0 ? '+39 02 1234 5678' : '+39 039 234 5678',
      workingSchedule: open ? ALL_DAY : {},
    });
    expect(res.status, res.text).toBe(200);
  }
  return t;
}

describe('GET /v1/voice/context', () => {
  it('matches the caller by number in any format, with first names and next appointments only, and logs the read', async () => {
    const t = await clinicWith(true);
    const cal = await makeCalendar(server, t);
    const giulia = await insertPatient(server, t, t.facilityIds[0], { first_name: 'Giulia', last_name: 'Rossi', phone: '+393331234567' });
    const marco = await insertPatient(server, t, t.facilityIds[0], { first_name: 'Marco', last_name: 'Rossi', phone: '+393331234567' });
    const booked = await server.api(t.token).callWithResponse('createAppointment', { body: { calendarId: cal.id, patientId: giulia, start: at(2, 9) } });
    expect(booked.response.status).toBe(201);

    const { data: res, response } = await context(t.token, { from: '333 123 4567', to: '039 2345678' });
    expect(response.status).toBe(200);
    expect(res.clinic).toMatchObject({ timezone: 'Europe/Rome', facilityId: t.facilityIds[1], facilityName: 'Sede Nord', openNow: true });
    expect(res.caller.match).toBe('patient');
    expect(res.caller.phone).toBe('+393331234567');
    const byId = Object.fromEntries(res.caller.patients.map((p) => [p.id, p]));
    expect(byId[giulia]).toEqual({
      id: giulia,
      firstName: 'Giulia',
      nextAppointments: [{ id: booked.data.id, start: at(2, 9), calendarName: expect.any(String), ...intlReading(at(2, 9)) }],
    });
    expect(byId[marco]!.nextAppointments).toEqual([]);
    expect(JSON.stringify(res)).not.toContain('Rossi');
    expect(res.transfer).toEqual({ possible: true, number: '+390392345678' });
    const logged = await server.ctx.db
      .selectFrom('access_log_entries')
      .selectAll()
      .where('clinic_id', '=', t.clinicId)
      .where('resource_type', '=', 'patient')
      .execute();
    expect(logged.some((e) => [...e.resource_ids].sort().join() === [giulia, marco].sort().join())).toBe(true);
  });

  it('matches the caller whatever shape the telephony platform sends the number in', async () => {
    const t = await clinicWith(true);
    const anna = await insertPatient(server, t, t.facilityIds[0], { first_name: 'Anna', last_name: 'De Luca', phone: '+393401112233' });
    // E.164, international prefix 00, separators and brackets, national form: as SIP headers and voice platforms send them.
    for (const from of ['+393401112233', '0039 340 111 2233', '(+39) 340-111-2233', '340.111.2233', '+39 340 1112233']) {
      const { data: res, response } = await context(t.token, { from });
      expect(response.status, from).toBe(200);
      expect(res.caller.match, from).toBe('patient');
      expect(
        res.caller.patients.map((p) => p.id),
        from,
      ).toEqual([anna]);
    }
  });

  it('says when a facility with a real weekly schedule opens next, in the clinic zone', async () => {
    const t = await server.factories.tenant();
    // Open only on the weekday two days from now (Rome time), 09:00-13:00: closed now, open then.
    const day = new Date(Date.now() + 2 * 86_400_000);
    const weekday = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Rome', weekday: 'short' }).format(day).toLowerCase();
    const patched = await server.admin('PATCH', `/admin/v1/clinics/${t.clinicId}/facilities/${t.facilityIds[0]}`, {
      phone: '+39 02 1234 5678',
      workingSchedule: { [weekday]: [{ open: '09:00', close: '13:00' }] },
    });
    expect(patched.status, patched.text).toBe(200);
    const { data: res, response } = await context(t.token, { from: '3470001122' });
    expect(response.status).toBe(200);
    expect(res.clinic).toMatchObject({ openNow: false, closesAt: null, facilityId: t.facilityIds[0] });
    const next = new Date(res.clinic.nextOpening!);
    const local = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Rome', weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
      next,
    );
    expect(local.toLowerCase()).toBe(`${weekday} 09:00`);
    expect(next.getTime() - Date.now()).toBeGreaterThan(86_400_000);
    expect(next.getTime() - Date.now()).toBeLessThan(3 * 86_400_000);
    expect(res.transfer).toEqual({ possible: false, number: null });
  });

  it('finds a lead, or nobody, and says when a closed clinic opens again', async () => {
    const t = await clinicWith(false);
    await server.ctx.db
      .insertInto('leads')
      .values({ id: crypto.randomUUID(), clinic_id: t.clinicId, facility_id: t.facilityIds[0], first_name: 'Luca', last_name: 'Bruni', phone: '+393479998888' })
      .execute();
    const lead = (await context(t.token, { from: '3479998888' })).data;
    expect(lead.caller).toMatchObject({ match: 'lead', patients: [], lead: { firstName: 'Luca' } });
    expect(lead.clinic).toMatchObject({ openNow: false, closesAt: null, nextOpening: null, facilityId: t.facilityIds[0] });
    expect(lead.transfer).toEqual({ possible: false, number: null });
    const anonymous = (await context(t.token, { from: 'anonymous' })).data;
    expect(anonymous.caller).toEqual({ match: 'unknown', phone: null, patients: [], lead: null });
    // Too short and not a number (outside the contract's pattern): raw call.
    const bad = await server.call('GET', '/v1/voice/context?from=12&to=abc', { token: t.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['from', 'to']);
    const junk = await rejection(context(t.token, { from: '000' }));
    expect(junk.status).toBe(400);
    expect(issuePaths(junk)[0]).toBe('from');
  });
});

describe('POST /v1/voice/handoffs', () => {
  it('while open: transfer to the facility’s number; once per call', async () => {
    const t = await clinicWith(true);
    const patientId = await insertPatient(server, t, t.facilityIds[1]);
    const body = { callId: 'CA-open-1', reason: 'billing', summary: 'Chiede del saldo', patientId } as const;
    const res = await handoff(t.token, body);
    expect(res.response.status).toBe(201);
    expect(res.data).toMatchObject({ outcome: 'transfer', transferTo: '+390392345678', taskId: null, facilityId: t.facilityIds[1], patientId });
    const again = await handoff(t.token, { ...body, reason: 'other' });
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(res.data);
  });

  it('while closed: a callback task with task.created, due at the next opening; bad ids name their fields', async () => {
    const t = await clinicWith(false);
    const patientId = await insertPatient(server, t);
    const { data: res, response } = await handoff(t.token, { callId: 'CA-closed-1', reason: 'clinical_question', summary: 'Dolore al dente', patientId });
    expect(response.status).toBe(201);
    expect(res).toMatchObject({ outcome: 'callback', transferTo: null });
    const task = await server.api(t.token).call('getTask', { params: { path: { id: res.taskId! } } });
    expect(task).toMatchObject({ patientId, type: 'callback', status: 'todo', facilityId: t.facilityIds[0] });
    expect(task.title).toContain('Dolore al dente');
    const events = await server.ctx.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('clinic_id', '=', t.clinicId)
      .where('type', '=', 'task.created')
      .execute();
    expect(events.map((e) => (e.data as { id: string }).id)).toContain(res.taskId);
    expect(JSON.stringify(events)).not.toContain('Dolore');

    const other = await server.factories.tenant();
    const foreign = await insertPatient(server, other);
    // A reason outside the contract's list: raw call.
    const bad = await server.call('POST', '/v1/voice/handoffs', { token: t.token, body: { callId: 'CA-closed-2', reason: 'hungry', patientId: foreign } });
    expect(bad.status).toBe(400);
    const bad2 = await rejection(handoff(t.token, { callId: 'CA-closed-2', reason: 'other', patientId: foreign, leadId: foreign }));
    expect(issuePaths(bad2).sort()).toEqual(['leadId', 'patientId']);
    expect(await server.ctx.db.selectFrom('voice_handoffs').select('id').where('call_ref', '=', 'CA-closed-2').execute()).toEqual([]);
  });
});
