/** The confirmation loop: the rules, the worklist, and how answers move appointments. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../helpers/factories.js';
import { intlReading } from '../../lib/reading.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { appointmentAhead, insertPatient, makeCalendar, moveInBackOffice } from '../../helpers/seed.js';
import { createAppointment } from '../../../src/modules/scheduling/agenda.js';
import { bookAppointment } from '../../../src/modules/scheduling/booking.js';
import { createEntry } from '../../../src/modules/waitlist/service.js';

let server: TestServer;
let tenant: Tenant;
const HOUR = 3_600_000;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

const RULES = {
  steps: [{ hoursBefore: 48 }, { hoursBefore: 24 }],
  calendarIds: [] as string[],
  categories: [] as string[],
  channels: ['phone', 'sms'],
  maxAttempts: 2,
  retryAfterMinutes: 120,
  quietStart: '00:00',
  quietEnd: '00:00',
};
const setRules = (t: Tenant, rules: Record<string, unknown> = RULES) => server.admin('PUT', `/admin/v1/clinics/${t.clinicId}/confirmation-rules`, rules);

type Row = {
  appointmentId: string;
  patientId: string;
  firstName: string;
  phone: string;
  start: string;
  localDate: string;
  localTime: string;
  label: string;
  service: { calendarId: string | null; name: string | null };
  attempts: number;
  lastOutcome: string | null;
  nextAttemptAt: string;
};
const list = async (t: Tenant = tenant, query = '') => {
  const res = await server.call('GET', `/v1/confirmations?limit=200${query}`, { token: t.token });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Row[];
};
const ids = async (t: Tenant = tenant, query = '') => (await list(t, query)).map((r) => r.appointmentId);
const answer = (appointmentId: string, body: Record<string, unknown>, t: Tenant = tenant) =>
  server.call('POST', `/v1/appointments/${appointmentId}/confirmation-attempts`, { token: t.token, body: { channel: 'phone', ...body } });

/** A half-hour appointment `hoursFromNow` ahead, entered in the agenda: its id. */
const appointment = async (t: Tenant, patientId: string, hoursFromNow: number, extra: Record<string, unknown> = {}) =>
  (await appointmentAhead(server, t, patientId, hoursFromNow, extra)).id;
const status = async (id: string) => (await server.ctx.db.selectFrom('appointments').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const eventsOf = async (clinicId: string, type: string) =>
  (await server.ctx.db.selectFrom('events').select(['type', 'data']).where('clinic_id', '=', clinicId).where('type', '=', type).execute()).map(
    (e) => e.data as { id?: string; appointmentId?: string },
  );

describe('confirmation rules', () => {
  it('are null until set, and a wrong body is refused naming every field, writing nothing', async () => {
    const t = await server.factories.tenant();
    const path = `/admin/v1/clinics/${t.clinicId}/confirmation-rules`;
    expect((await server.admin('GET', path)).body).toBeNull();
    const bad = await server.admin('PUT', path, {
      ...RULES,
      steps: [{ hoursBefore: 48, daysBefore: 1 }, { daysBefore: 1 }, {}],
      channels: [],
      maxAttempts: 0,
      quietEnd: '25:00',
    });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(
      ['channels', 'maxAttempts', 'quietEnd', 'steps.0', 'steps.1.at', 'steps.2'].sort(),
    );
    expect((await server.admin('GET', path)).body).toBeNull();
    const evening = { ...RULES, steps: [{ daysBefore: 1, at: '18:00' }] };
    expect((await server.admin('PUT', path, evening)).body).toEqual(evening);
    expect((await server.admin('GET', path)).body).toEqual(evening);
  });
});

describe('confirmation worklist', () => {
  it('lists the appointments waiting for their confirmation soonest first, with what an agent needs, and logs the read', async () => {
    const t = await server.factories.tenant();
    expect(await ids(t)).toEqual([]); // no rules yet
    const cal = await makeCalendar(server, t);
    const [a, b, c, d, e, f] = await Promise.all(Array.from({ length: 6 }, () => insertPatient(server, t)));
    const soon = await appointment(t, a!, 30); // asked since 18 hours
    const booked = await bookAppointment(server.ctx.db, await server.actor(t.clinicId), {
      calendarId: cal.id,
      patientId: b!,
      start: new Date(Math.ceil((Date.now() + 40 * HOUR) / 1_800_000) * 1_800_000).toISOString(),
    });
    const later = await appointment(t, c!, 60); // asked in 12 hours
    const confirmed = await appointment(t, d!, 20, { status: 'confirmed' });
    const cancelled = await appointment(t, e!, 20);
    await server.ctx.db.updateTable('appointments').set({ status: 'cancelled' }).where('id', '=', cancelled).execute();
    const inactive = await appointment(t, f!, 20);
    await server.ctx.db.updateTable('patients').set({ is_active: false }).where('id', '=', f!).execute();
    void confirmed;
    void inactive;
    expect((await setRules(t)).status).toBe(200);

    const rows = await list(t);
    expect(rows.map((r) => r.appointmentId)).toEqual([soon, booked.id]);
    expect(Object.keys(rows[0]!).sort()).toEqual(
      [
        'appointmentId',
        'attempts',
        'channels',
        'facilityId',
        'firstName',
        'label',
        'lastOutcome',
        'localDate',
        'localTime',
        'nextAttemptAt',
        'nextAttemptAtLocal',
        'patientId',
        'phone',
        'service',
        'start',
      ].sort(),
    );
    // The start read in the clinic's zone (Europe/Rome), by Intl and not by the code's helper.
    for (const row of rows) expect({ localDate: row.localDate, localTime: row.localTime, label: row.label }).toEqual(intlReading(row.start));
    expect(rows[0]).toMatchObject({ firstName: 'Paziente', attempts: 0, lastOutcome: null, channels: ['phone', 'sms'] });
    expect(rows[1]!.service).toMatchObject({ calendarId: cal.id, name: expect.stringMatching(/^Calendario /) });
    // Asked since the 48-hour step: the next attempt is now.
    expect(Math.abs(Date.parse(rows[0]!.nextAttemptAt) - Date.now())).toBeLessThan(60_000);
    // dueBefore looks ahead: the appointment in 60 hours is asked 48 hours before.
    expect(await ids(t, `&dueBefore=${new Date(Date.now() + 13 * HOUR).toISOString()}`)).toEqual([soon, booked.id, later]);
    expect(await ids(t, `&dueBefore=${new Date(Date.now() + 11 * HOUR).toISOString()}`)).toEqual([soon, booked.id]);
    // Paging keeps the order.
    const first = await server.call('GET', '/v1/confirmations?limit=1', { token: t.token });
    const second = await server.call('GET', `/v1/confirmations?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`, { token: t.token });
    expect(second.status, second.text).toBe(200);
    expect([first.body.data[0].appointmentId, second.body.data[0].appointmentId]).toEqual([soon, booked.id]);
    const logged = await server.ctx.db
      .selectFrom('access_log_entries')
      .selectAll()
      .where('clinic_id', '=', t.clinicId)
      .where('resource_type', '=', 'patient')
      .execute();
    expect(logged.some((l) => l.resource_ids.includes(a!) && l.fields.includes('phone'))).toBe(true);

    // Only the rules' calendars and categories.
    expect((await setRules(t, { ...RULES, calendarIds: [cal.id] })).status).toBe(200);
    expect(await ids(t)).toEqual([booked.id]);
    expect((await setRules(t, { ...RULES, categories: ['recall'] })).status).toBe(200);
    expect(await ids(t)).toEqual([]);
    expect((await setRules(t)).status).toBe(200);

    // A confirmation by any other road (the back office) takes the appointment out at once.
    const change = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/appointments/${soon}/status`, { status: 'confirmed' });
    expect(change.status, change.text).toBeLessThan(300);
    expect(await ids(t)).toEqual([booked.id]);
  });

  it('asks the evening before at the local time of the rules', async () => {
    const t = await server.factories.tenant();
    const p = await insertPatient(server, t);
    // 09:00 in Rome two local days ahead: asked at 18:00 in Rome the day before.
    const day = new Date(Date.now() + 2 * 86_400_000);
    const local = intlReading(day).localDate;
    const start = new Date(`${local}T09:00:00+01:00`);
    const offset = intlReading(start).localTime === '09:00' ? 0 : -HOUR; // summer time: +02:00
    const at = new Date(start.getTime() + offset);
    const row = await createAppointment(server.ctx.db, await server.actor(t.clinicId), {
      patientId: p,
      start: at.toISOString(),
      end: new Date(at.getTime() + 1_800_000).toISOString(),
      facilityId: t.facilityIds[0],
    });
    expect((await setRules(t, { ...RULES, steps: [{ daysBefore: 1, at: '18:00' }] })).status).toBe(200);
    const ask = new Date(at.getTime() - 15 * HOUR); // 18:00 the day before, 15 hours before 09:00
    expect(await ids(t, `&dueBefore=${new Date(ask.getTime() + 60_000).toISOString()}`)).toEqual([row.id]);
    expect(await ids(t, `&dueBefore=${new Date(ask.getTime() - 60_000).toISOString()}`)).toEqual([]);
  });
});

describe('confirmation attempts', () => {
  it('confirmed: the appointment is confirmed with its event, leaves the list, and the same call again answers the attempt recorded', async () => {
    const p = await insertPatient(server, tenant);
    const id = await appointment(tenant, p, 20);
    expect((await setRules(tenant)).status).toBe(200);
    expect(await ids()).toContain(id);
    const res = await answer(id, { outcome: 'confirmed', externalCallId: `call-${id}` });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ appointmentId: id, patientId: p, outcome: 'confirmed', appointmentStatus: 'confirmed', channel: 'phone' });
    expect(await status(id)).toBe('confirmed');
    expect((await eventsOf(tenant.clinicId, 'appointment.confirmed')).filter((e) => e.id === id)).toHaveLength(1);
    expect(await ids()).not.toContain(id);
    const again = await answer(id, { outcome: 'confirmed', externalCallId: `call-${id}` });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(res.body.id);
    // A second channel confirming again changes nothing and records no second event.
    expect((await answer(id, { channel: 'sms', outcome: 'confirmed' })).status).toBe(201);
    expect((await eventsOf(tenant.clinicId, 'appointment.confirmed')).filter((e) => e.id === id)).toHaveLength(1);
    // The same call id for another appointment: 409, nothing written.
    const other = await appointment(tenant, p, 21);
    const reused = await answer(other, { outcome: 'cancel_requested', externalCallId: `call-${id}` });
    expect(reused.status).toBe(409);
    expect(reused.body.error.details.reason).toBe('external_call_id_used');
    expect(await status(other)).toBe('scheduled');
  });

  it('cancel_requested: cancelled as a plain cancel, the slot offered to the waitlist at once; an answer after it changes nothing', async () => {
    const t = await server.factories.tenant();
    expect((await setRules(t)).status).toBe(200);
    const actor = await server.actor(t.clinicId);
    const cal = await makeCalendar(server, t, { cancellationNoticeMinutes: 72 * 60 });
    const [a, b] = [await insertPatient(server, t), await insertPatient(server, t)];
    const start = new Date(Math.ceil((Date.now() + 30 * HOUR) / 1_800_000) * 1_800_000).toISOString();
    const booked = await bookAppointment(server.ctx.db, actor, { calendarId: cal.id, patientId: a, start });
    const waiting = await createEntry(server.ctx.db, actor, {
      patientId: b,
      calendarId: cal.id,
      latest: new Date(Date.now() + 5 * 86_400_000).toISOString(),
      channel: 'sms',
    });
    // The calendar's 72-hour notice refuses the patient's own cancel; the clinic's question does not.
    expect((await server.call('POST', `/v1/appointments/${booked.id}/cancel`, { token: t.token })).status).toBe(403);
    const res = await answer(booked.id, { channel: 'whatsapp', outcome: 'cancel_requested', externalCallId: 'wamid.1' }, t);
    expect(res.status, res.text).toBe(201);
    expect(res.body.appointmentStatus).toBe('cancelled');
    expect(await status(booked.id)).toBe('cancelled');
    expect((await eventsOf(t.clinicId, 'appointment.cancelled')).map((e) => e.id)).toEqual([booked.id]);
    const offers = await server.ctx.db.selectFrom('waitlist_offers').selectAll().where('entry_id', '=', waiting.id).execute();
    expect(offers).toHaveLength(1);
    expect(offers[0]!.start_at.toISOString()).toBe(new Date(start).toISOString());
    expect(await ids(t)).toEqual([]);
    // A retry of the same message answers the attempt; another answer is refused, writing nothing.
    expect((await answer(booked.id, { channel: 'whatsapp', outcome: 'cancel_requested', externalCallId: 'wamid.1' }, t)).status).toBe(200);
    const late = await answer(booked.id, { outcome: 'confirmed' }, t);
    expect(late.status).toBe(409);
    expect(late.body.error.details).toMatchObject({ reason: 'not_answerable', status: 'cancelled' });
    const attempts = await server.ctx.db.selectFrom('confirmation_attempts').select('outcome').where('appointment_id', '=', booked.id).execute();
    expect(attempts.map((x) => x.outcome)).toEqual(['cancel_requested']);
  });

  it('reschedule_requested keeps the slot and makes a task; no_answer retries after the delay up to the attempts; wrong_number and opted_out stop asking', async () => {
    const t = await server.factories.tenant();
    expect((await setRules(t)).status).toBe(200);
    const [a, b, c, d] = await Promise.all(Array.from({ length: 4 }, () => insertPatient(server, t)));
    const [move, silent, wrong, out] = [await appointment(t, a!, 20), await appointment(t, b!, 21), await appointment(t, c!, 22), await appointment(t, d!, 23)];
    expect(await ids(t)).toEqual([move, silent, wrong, out]);

    const moved = await answer(move, { outcome: 'reschedule_requested', note: 'Preferisce il pomeriggio' }, t);
    expect(moved.status, moved.text).toBe(201);
    expect(moved.body.appointmentStatus).toBe('scheduled');
    const task = await server.ctx.db.selectFrom('tasks').selectAll().where('id', '=', moved.body.taskId).executeTakeFirstOrThrow();
    expect(task).toMatchObject({ type: 'confirmation', patient_id: a, clinic_id: t.clinicId });

    const before = Date.now();
    expect((await answer(silent, { outcome: 'no_answer' }, t)).status).toBe(201);
    const row = (await list(t)).find((r) => r.appointmentId === silent)!;
    expect(row).toMatchObject({ attempts: 1, lastOutcome: 'no_answer' });
    expect(Date.parse(row.nextAttemptAt)).toBeGreaterThanOrEqual(before + 120 * 60_000 - 1000);
    expect((await answer(silent, { channel: 'sms', outcome: 'voicemail' }, t)).status).toBe(201); // the second of two attempts

    expect((await answer(wrong, { outcome: 'wrong_number' }, t)).status).toBe(201);
    expect((await answer(out, { channel: 'chat', outcome: 'opted_out' }, t)).status).toBe(201);
    expect(await ids(t)).toEqual([]);
    // Another appointment of the opted-out patient is not asked either, until a person clears it.
    const outLater = await appointment(t, d!, 30);
    expect(await ids(t)).toEqual([]);
    expect((await server.admin('DELETE', `/admin/v1/clinics/${t.clinicId}/confirmations/${d}/opt-out`)).status).toBe(204);
    expect(await ids(t)).toEqual([out, outLater]);
    // The wrong phone: back once the patient's phone changes.
    await server.ctx.db.updateTable('patients').set({ phone: '+393339990001' }).where('id', '=', c!).execute();
    expect(await ids(t)).toEqual([wrong, out, outLater]);
  });

  it('asks a moved appointment afresh: the attempts and the reschedule asked for belong to its old time', async () => {
    const t = await server.factories.tenant();
    expect((await setRules(t)).status).toBe(200);
    const [a, b] = await Promise.all([insertPatient(server, t), insertPatient(server, t)]);
    const [move, silent] = [await appointment(t, a!, 20), await appointment(t, b!, 21)];
    expect((await answer(move, { outcome: 'reschedule_requested' }, t)).status).toBe(201);
    for (const outcome of ['no_answer', 'voicemail']) expect((await answer(silent, { outcome }, t)).status).toBe(201);
    expect(await ids(t)).toEqual([]);

    // The clinic moves both (the reschedule the patient asked for, and another): each is asked again.
    for (const [id, hours] of [
      [move, 26],
      [silent, 27],
    ] as const)
      await moveInBackOffice(server, t, id, new Date(Math.floor((Date.now() + hours * HOUR) / 60_000) * 60_000));
    const rows = await list(t);
    expect(rows.map((r) => [r.appointmentId, r.attempts, r.lastOutcome])).toEqual([
      [move, 0, null],
      [silent, 0, null],
    ]);
    // Attempts at the new time count from one, up to the rules' limit again.
    expect((await answer(silent, { outcome: 'no_answer' }, t)).status).toBe(201);
    expect((await list(t)).find((r) => r.appointmentId === silent)).toMatchObject({ attempts: 1, lastOutcome: 'no_answer' });
  });

  it('refuses bad input naming every field, another clinic’s appointment with 404, a past one with 409, writing nothing', async () => {
    const p = await insertPatient(server, tenant);
    const id = await appointment(tenant, p, 20);
    const bad = await server.call('POST', `/v1/appointments/${id}/confirmation-attempts`, {
      token: tenant.token,
      body: { channel: 'pigeon', outcome: 'maybe', externalCallId: '', extra: 1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['channel', 'externalCallId', 'extra', 'outcome']);
    const other = await server.factories.tenant();
    expect((await answer(id, { outcome: 'confirmed' }, other)).status).toBe(404);
    expect((await answer(crypto.randomUUID(), { outcome: 'confirmed' })).status).toBe(404);
    const past = await appointment(tenant, p, -2);
    expect((await answer(past, { outcome: 'no_answer' })).status).toBe(409);
    expect(await status(id)).toBe('scheduled');
    const attempts = await server.ctx.db.selectFrom('confirmation_attempts').select('id').where('appointment_id', 'in', [id, past]).execute();
    expect(attempts).toEqual([]);
  });
});
