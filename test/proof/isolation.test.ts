/**
 * Isolation beyond the security matrix's single-resource 404s: a clinic's
 * records, made in its first facility, never appear to a key of another clinic nor to a key
 * of the same clinic limited to its second facility, in any list, search, lookup, event or
 * delivery, and their ids answer 404 to both on reads and writes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/modules/auth/scopes.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { announced, inline, pdf } from '../modules/documents/helpers.js';
import { callTool } from '../agents/mcp-client.js';

let server: TestServer;
let owner: Tenant;
let outsiders: Array<{ who: string; token: string }>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  server = await startTestServer({ config: { webhookAllowInsecure: true } });
  owner = await server.factories.tenant();
  const other = await server.factories.tenant();
  const limited = await server.factories.key(owner.clinicId, [...SCOPES], [owner.facilityIds[1]]);
  outsiders = [
    { who: 'a key of another clinic', token: other.token },
    { who: 'a key limited to another facility', token: limited.token },
  ];
  const f1 = owner.facilityIds[0];
  const as = (method: string, path: string, body?: unknown) => server.call(method, path, { token: owner.token, body });
  const admin = (path: string, body: unknown) => server.admin('POST', `/admin/v1/clinics/${owner.clinicId}${path}`, body);
  const ok = (res: { status: number; text: string; body: any }) => {
    expect(res.status, res.text).toBeLessThan(300);
    return res.body;
  };

  // A destination of the owner, so its events become deliveries.
  ids.endpoint = ok(
    await as('POST', '/v1/webhook-endpoints', {
      url: 'https://hooks.example.com/isolation',
      events: ['patient.created', 'lead.created', 'task.created', 'call.logged'],
    }),
  ).id;
  ids.patient = ok(
    await as('POST', '/v1/patients', { firstName: 'Isolde', lastName: 'Riservata', phone: '+39 333 424 2424', email: 'isolde@example.com', facilityId: f1 }),
  ).id;
  ids.lead = ok(await as('POST', '/v1/leads', { firstName: 'Leandro', lastName: 'Nascosto', phone: '+39 347 424 2424', facilityId: f1 })).id;
  ids.call = ok(
    await as('POST', '/v1/calls', { externalCallId: 'iso-1', direction: 'inbound', from: '+39 333 424 2424', to: '+39 02 1234567', facilityId: f1 }),
  ).id;
  const start = new Date(Date.now() + 3 * 86_400_000);
  start.setUTCHours(9, 0, 0, 0);
  ids.appointment = ok(
    await admin('/appointments', {
      patientId: ids.patient,
      start: start.toISOString(),
      end: new Date(start.getTime() + 1_800_000).toISOString(),
      facilityId: f1,
      title: 'Visita riservata',
    }),
  ).id;
  // The confirmation loop: the appointment, three days ahead, waits for its confirmation.
  ok(
    await server.admin('PUT', `/admin/v1/clinics/${owner.clinicId}/confirmation-rules`, {
      steps: [{ hoursBefore: 120 }],
      calendarIds: [],
      categories: [],
      channels: ['phone'],
      maxAttempts: 3,
      retryAfterMinutes: 60,
      quietStart: '00:00',
      quietEnd: '00:00',
    }),
  );
  ids.task = ok(await admin('/tasks', { title: 'Richiamare Isolde', patientId: ids.patient, facilityId: f1 })).id;
  ids.conversation = ok(await admin('/conversations', { patientId: ids.patient, facilityId: f1 })).id;
  const bytes = pdf(900);
  ids.document = ok(await as('POST', '/v1/documents', inline(ids.patient, bytes, { title: 'Radiografia riservata' }))).id;
  ids.upload = ok(await as('POST', '/v1/documents', announced(ids.patient, bytes))).id;
  ids.plan = ok(await admin('/payment-plans', { patientId: ids.patient, installments: [{ amount: 50, dueDate: '2026-01-01' }] })).id;
  ids.quote = ok(
    await as('POST', '/v1/treatment-plans', {
      patientId: ids.patient,
      title: 'Impianto riservato',
      items: [{ description: 'Impianto', teeth: [36], unitAmount: 1200 }],
    }),
  ).id;
  ok(await as('POST', `/v1/treatment-plans/${ids.quote}/present`, {}));
  ids.invoice = ok(await admin('/invoices', { patientId: ids.patient, number: 'ISO-1', lines: [{ description: 'Visita riservata', unitAmount: 100 }] })).id;
  ids.payment = ok(await as('POST', '/v1/payments', { amount: 10, method: 'card', reference: 'iso-pay-1', invoiceId: ids.invoice })).id;
  // The Clinic area and the voice agent: a chair, a calendar of the owner's doctor, a hold, a handoff.
  ids.chair = ok(await admin('/chairs', { name: 'Poltrona riservata', facilityId: f1 })).id;
  const weekdays = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ open: '00:00', close: '24:00' }]]));
  ids.calendar = ok(
    await admin('/calendars', {
      facilityId: f1,
      name: 'Igiene riservata',
      slotMinutes: 30,
      workingHours: weekdays,
      doctorIds: [owner.doctorId],
      chairIds: [ids.chair],
    }),
  ).id;
  ids.doctor = owner.doctorId;
  const holdStart = new Date(Date.now() + 4 * 86_400_000);
  holdStart.setUTCHours(9, 0, 0, 0);
  ids.hold = ok(await as('POST', `/v1/calendars/${ids.calendar}/holds`, { start: holdStart.toISOString(), holderRef: 'iso-call' })).id;
  ids.handoff = ok(await as('POST', '/v1/voice/handoffs', { callId: 'iso-call', reason: 'other', patientId: ids.patient, facilityId: f1 })).id;
  // The waitlist: the lead waits for the calendar, and the patient's cancelled slot is offered to it.
  ids.waitlistEntry = ok(
    await as('POST', '/v1/waitlist', {
      leadId: ids.lead,
      calendarId: ids.calendar,
      latest: new Date(Date.now() + 20 * 86_400_000).toISOString(),
      channel: 'phone',
    }),
  ).id;
  const freed = ok(
    await as('POST', '/v1/appointments', { calendarId: ids.calendar, patientId: ids.patient, start: new Date(holdStart.getTime() + 86_400_000).toISOString() }),
  ).id;
  ok(await as('POST', `/v1/appointments/${freed}/cancel`));
  ids.offer = ok(await as('GET', `/v1/waitlist-offers?entryId=${ids.waitlistEntry}`)).data[0].id;
  const events = await server.ctx.db.selectFrom('events').select('id').where('clinic_id', '=', owner.clinicId).execute();
  expect(events.length).toBeGreaterThan(3);
  ids.events = events.map((e) => e.id).join(',');
});
afterAll(() => server.close());

describe('isolation between clinics and facilities', () => {
  it('the owner sees every record (the checks below are real)', async () => {
    for (const path of [
      `/v1/patients/${ids.patient}`,
      `/v1/leads/${ids.lead}`,
      `/v1/calls/${ids.call}`,
      `/v1/appointments/${ids.appointment}`,
      `/v1/tasks/${ids.task}`,
      `/v1/conversations/${ids.conversation}`,
      `/v1/webhook-endpoints/${ids.endpoint}`,
      `/v1/treatment-plans/${ids.quote}`,
      `/v1/invoices/${ids.invoice}`,
      `/v1/payments/${ids.payment}`,
      `/v1/patients/${ids.patient}/balance`,
      `/v1/documents/${ids.document}`,
      `/v1/documents/${ids.document}/content`,
      `/v1/documents/${ids.upload}`,
      `/v1/calendars/${ids.calendar}`,
      `/v1/doctors/${ids.doctor}`,
      `/v1/calendars/${ids.calendar}/availability`,
      `/v1/waitlist/${ids.waitlistEntry}`,
    ]) {
      expect((await server.call('GET', path, { token: owner.token })).status, path).toBe(200);
    }
    const search = await server.call('GET', '/v1/patients/search?q=Isolde%20Riservata', { token: owner.token });
    expect(search.body.data.map((h: { id: string }) => h.id)).toContain(ids.patient);
    const plans = await server.call('GET', '/v1/payment-plans?state=all', { token: owner.token });
    expect(plans.body.data.map((p: { id: string }) => p.id)).toContain(ids.plan);
    const confirmations = await server.call('GET', '/v1/confirmations?limit=200', { token: owner.token });
    expect(confirmations.body.data.map((c: { appointmentId: string }) => c.appointmentId)).toContain(ids.appointment);
    const documents = await server.call('GET', `/v1/documents?patientId=${ids.patient}`, { token: owner.token });
    expect(documents.body.data.map((d: { id: string }) => d.id)).toEqual(expect.arrayContaining([ids.document, ids.upload]));
  });

  it('reads and writes of those ids answer 404', async () => {
    for (const { who, token } of outsiders) {
      const calls: Array<[string, string, unknown?]> = [
        ['GET', `/v1/patients/${ids.patient}`],
        ['GET', `/v1/leads/${ids.lead}`],
        ['GET', `/v1/calls/${ids.call}`],
        ['GET', `/v1/appointments/${ids.appointment}`],
        ['POST', `/v1/appointments/${ids.appointment}/cancel`, {}],
        ['POST', `/v1/appointments/${ids.appointment}/confirmation-attempts`, { channel: 'phone', outcome: 'confirmed' }],
        ['POST', `/v1/appointments/${ids.appointment}/confirmation-attempts`, { channel: 'sms', outcome: 'cancel_requested' }],
        ['GET', `/v1/tasks/${ids.task}`],
        ['PATCH', `/v1/tasks/${ids.task}`, { status: 'done' }],
        ['GET', `/v1/conversations/${ids.conversation}`],
        ['GET', `/v1/conversations/${ids.conversation}/messages`],
        ['PATCH', `/v1/conversations/${ids.conversation}/bot`, { state: 'attivo' }],
        ['GET', `/v1/webhook-endpoints/${ids.endpoint}`],
        ['PATCH', `/v1/webhook-endpoints/${ids.endpoint}`, { enabled: false }],
        ['POST', `/v1/webhook-endpoints/${ids.endpoint}/replay`, { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString() }],
        ['GET', `/v1/treatment-plans/${ids.quote}`],
        ['PATCH', `/v1/treatment-plans/${ids.quote}`, { discount: 1 }],
        ['POST', `/v1/treatment-plans/${ids.quote}/accept`, { channel: 'chat' }],
        ['POST', `/v1/treatment-plans/${ids.quote}/reject`, { reason: 'price' }],
        ['POST', `/v1/treatment-plans/${ids.quote}/cancel`],
        ['POST', `/v1/treatment-plans/${ids.quote}/present`, {}],
        ['GET', `/v1/invoices/${ids.invoice}`],
        ['GET', `/v1/payments/${ids.payment}`],
        ['GET', `/v1/patients/${ids.patient}/balance`],
        ['GET', `/v1/documents/${ids.document}`],
        ['GET', `/v1/documents/${ids.document}/content`],
        ['GET', `/v1/documents/${ids.document}/content?delivery=link`],
        ['POST', `/v1/documents/${ids.upload}/complete`],
        ['DELETE', `/v1/documents/${ids.document}`],
        ['GET', `/v1/calendars/${ids.calendar}`],
        ['GET', `/v1/calendars/${ids.calendar}/availability`],
        [
          'POST',
          `/v1/calendars/${ids.calendar}/holds`,
          { start: new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 11) + '09:00:00Z', holderRef: 'x' },
        ],
        ['DELETE', `/v1/holds/${ids.hold}`],
        ['GET', `/v1/doctors/${ids.doctor}`],
        ['GET', `/v1/waitlist/${ids.waitlistEntry}`],
        ['DELETE', `/v1/waitlist/${ids.waitlistEntry}`],
        ['POST', `/v1/waitlist-offers/${ids.offer}/accept`],
        ['POST', `/v1/waitlist-offers/${ids.offer}/decline`],
        ['GET', `/v1/recalls/${ids.patient}/attempts`],
        ['POST', `/v1/recalls/${ids.patient}/attempts`, { channel: 'phone', outcome: 'no_answer' }],
      ];
      for (const [method, path, body] of calls) {
        const res = await server.call(method, path, { token, body });
        expect(res.status, `${who}: ${method} ${path}: ${res.text}`).toBe(404);
      }
    }
    expect((await server.call('GET', `/v1/tasks/${ids.task}`, { token: owner.token })).body.status).not.toBe('done');
    expect((await server.call('GET', `/v1/documents/${ids.document}`, { token: owner.token })).body.archivedAt).toBeNull();
    // A document linking a patient the key cannot see is refused naming the field.
    for (const { who, token } of outsiders) {
      const res = await server.call('POST', '/v1/documents', { token, body: inline(ids.patient, pdf(100)) });
      expect(res.status, who).toBe(400);
      expect(res.body.error.details.issues[0].path).toBe('patientId');
    }
    expect((await server.call('GET', `/v1/treatment-plans/${ids.quote}`, { token: owner.token })).body.status).toBe('presented');
  });

  it('payments toward their invoice or patient are refused as unknown references, paying nothing', async () => {
    for (const { who, token } of outsiders) {
      for (const target of [{ invoiceId: ids.invoice }, { patientId: ids.patient }]) {
        const res = await server.call('POST', '/v1/payments', { token, body: { amount: 1, method: 'cash', reference: `iso-${randomUUID()}`, ...target } });
        expect(res.status, `${who}: ${res.text}`).toBe(400);
        expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(Object.keys(target));
      }
      // The owner's reference, reused by an outsider, neither answers the owner's payment nor records one.
      const reused = await server.call('POST', '/v1/payments', {
        token,
        body: { amount: 10, method: 'card', reference: 'iso-pay-1', patientId: randomUUID() },
      });
      expect(reused.status, who).toBe(400);
    }
    expect((await server.call('GET', `/v1/invoices/${ids.invoice}`, { token: owner.token })).body.amountPaid).toBe(10);
  });

  it('lists, searches, lookups, events and deliveries never show them', async () => {
    const all = Object.values(ids).flatMap((v) => v.split(','));
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const statsRange = `/v1/stats/agenda?from=${day(-1)}&to=${day(10)}`;
    // The checks below are real: the owner's figures count them.
    const own = (await server.call('GET', statsRange, { token: owner.token })).body.totals;
    expect(own).toMatchObject({ appointments: 1, cancellations: 1 });
    for (const { who, token } of outsiders) {
      for (const path of [
        '/v1/appointments?limit=200',
        '/v1/appointments?sort=start&limit=200',
        '/v1/tasks?limit=200',
        '/v1/documents?limit=200&includeArchived=true',
        `/v1/documents?patientId=${ids.patient}`,
        '/v1/payment-plans?state=all&limit=200',
        '/v1/treatment-plans?limit=200',
        '/v1/invoices?limit=200',
        '/v1/payments?limit=200',
        '/v1/events?limit=200',
        '/v1/webhook-deliveries?limit=200',
        '/v1/webhook-endpoints',
        '/v1/patients/search?q=Isolde%20Riservata',
        '/v1/patients/search?q=isolde%40example.com',
        '/v1/patients/search?q=3334242424',
        '/v1/calendars?limit=200',
        '/v1/doctors?limit=200',
        '/v1/chairs?limit=200',
        '/v1/facilities?limit=200',
        '/v1/voice/context?from=%2B393334242424',
        '/v1/waitlist?limit=200',
        '/v1/waitlist-offers?limit=200',
        '/v1/recalls?limit=200',
        '/v1/confirmations?limit=200',
      ]) {
        const res = await server.call('GET', path, { token });
        expect(res.status, `${who}: ${path}: ${res.text}`).toBe(200);
        const text = res.text;
        for (const id of all) expect(text.includes(id), `${who} sees ${id} in ${path}`).toBe(false);
      }
      // The agenda's figures count none of the owner's appointments, cancellation or offer; its facility is unseen.
      const stats = await server.call('GET', statsRange, { token });
      expect(stats.status, `${who}: ${stats.text}`).toBe(200);
      for (const week of [...stats.body.weeks, stats.body.totals])
        expect(week, who).toMatchObject({ appointments: 0, cancellations: 0, refilled: 0, recallsAttempted: 0 });
      expect((await server.call('GET', `${statsRange}&facilityId=${owner.facilityIds[0]}`, { token })).status, who).toBe(404);
      const lookup = await server.call('GET', '/v1/patients/lookup?phone=%2B393334242424', { token });
      expect(lookup.body.found, who).toBe(false);
      const context = await server.call('GET', '/v1/voice/context?from=%2B393334242424', { token });
      expect(context.body.caller.match, who).toBe('unknown');
      // The handoff of the same call id is the owner's: another key's handoff is its own, never the owner's.
      const handoff = await server.call('POST', '/v1/voice/handoffs', { token, body: { callId: 'iso-call', reason: 'other', patientId: ids.patient } });
      expect(handoff.status, `${who}: ${handoff.text}`).toBe(400);
    }
  });

  it('no agent tool shows or touches them (MCP, a new connection per call)', async () => {
    const all = Object.values(ids).flatMap((v) => v.split(','));
    const start = new Date(Date.now() + 5 * 86_400_000);
    start.setUTCHours(10, 0, 0, 0);
    const calls: Record<string, Record<string, unknown>> = {
      get_caller_context: { from: '+393334242424' },
      search_patients: { q: 'Isolde Riservata' },
      list_services: {},
      find_slots: { calendarId: ids.calendar },
      hold_slot: { calendarId: ids.calendar, start: start.toISOString(), holderRef: 'iso-tool' },
      release_hold: { holdId: ids.hold },
      book_appointment: { calendarId: ids.calendar, start: start.toISOString(), patientId: ids.patient },
      reschedule_appointment: { appointmentId: ids.appointment, start: start.toISOString() },
      cancel_appointment: { appointmentId: ids.appointment },
      list_patient_appointments: { patientId: ids.patient },
      create_lead: { firstName: 'Estraneo', facilityId: owner.facilityIds[0], callId: 'iso-tool' },
      log_call: { externalCallId: 'iso-tool', direction: 'inbound', from: '+393334242424', to: '+39021234567', patientId: ids.patient },
      hand_off: { callId: 'iso-call', reason: 'other', patientId: ids.patient },
      create_task: { title: 'Estraneo', patientId: ids.patient },
      get_balance: { patientId: ids.patient },
      get_conversation_messages: { conversationId: ids.conversation },
      set_bot_state: { conversationId: ids.conversation, state: 'attivo' },
      get_agenda_stats: {
        from: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
        to: new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10),
      },
      list_confirmations: {},
      log_confirmation_attempt: { appointmentId: ids.appointment, channel: 'phone', outcome: 'confirmed', callId: 'iso-confirm' },
      reply_to_confirmation: { appointmentId: ids.appointment, channel: 'chat', outcome: 'cancel_requested', externalCallId: 'iso-reply' },
    };
    for (const { who, token } of outsiders) {
      for (const [tool, args] of Object.entries(calls)) {
        const result = await callTool(server.url, token, tool, args);
        const text = result.content.map((c) => c.text).join('\n');
        for (const id of all) expect(text.includes(id) && !Object.values(args).includes(id), `${who} sees ${id} through ${tool}`).toBe(false);
        // A tool given one of the owner's ids is refused (a list filtered by it is empty instead).
        const namesOwners = Object.values(args).some((v) => all.includes(v as string) || v === owner.facilityIds[0]);
        if (namesOwners && tool !== 'list_patient_appointments') expect(result.isError, `${who}: ${tool}: ${text}`).toBe(true);
        if (result.isError) expect(['not_found', 'invalid_request'], `${who}: ${tool}: ${text}`).toContain(JSON.parse(text.split('\n')[1]!).code);
      }
    }
    const appointment = await server.call('GET', `/v1/appointments/${ids.appointment}`, { token: owner.token });
    expect(appointment.body.status).toBe('scheduled');
  });
});
