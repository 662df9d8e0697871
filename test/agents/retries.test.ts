/**
 * A retry is a retry: a writing tool call replays only a repeat of the call's last write (the
 * same tool with the same arguments, as they mean, nothing written since), and any other
 * writing call of the call is a new attempt. On REST, a booking retried without Idempotency-Key
 * answers the appointment it made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoClinic } from '../../src/demo/clinic.js';
import { nextStep } from '../../src/agents/results.js';
import { startDemoServer, type TestServer } from '../helpers/server.js';
import { callTool, toolError } from './mcp-client.js';

let server: TestServer;
let demo: DemoClinic;
let calendarId: string;
let starts: string[];
let patients: string[];

beforeAll(async () => {
  ({ server, demo } = await startDemoServer());
  const services = await callTool(server.url, demo.voiceToken, 'list_services', {});
  calendarId = services.structuredContent.data.find((c: { keywords: string[] }) => c.keywords.includes('pulizia')).id;
  // Two days ahead: past the demo calendar's cancellation notice (a day), whatever the hour the tests run at.
  const from = new Date(Date.now() + 2 * 86_400_000).toISOString();
  const slots = await callTool(server.url, demo.voiceToken, 'find_slots', { calendarId, from, limit: 20 });
  starts = slots.structuredContent.data.map((s: { start: string }) => s.start);
  const rows = await server.ctx.db.selectFrom('patients').select('id').where('clinic_id', '=', demo.liveClinicId).orderBy('id').limit(2).execute();
  patients = rows.map((p) => p.id);
  expect(patients).toHaveLength(2);
}, 60_000);
afterAll(() => server.close());

/** A free slot no other test uses. */
let used = 0;
const nextStart = () => starts[used++]!;

async function count(table: 'appointments' | 'slot_holds', where: Record<string, string> = {}): Promise<number> {
  let query = server.ctx.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('clinic_id', '=', demo.liveClinicId);
  for (const [column, value] of Object.entries(where)) query = query.where(column as 'id', '=', value);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

const events = async (type: string, appointmentId: string) =>
  (await server.ctx.db.selectFrom('events').select('data').where('clinic_id', '=', demo.liveClinicId).where('type', '=', type).execute()).filter(
    (e) =>
      (e.data as { id?: string; appointment?: { id?: string } }).id === appointmentId ||
      (e.data as { appointment?: { id?: string } }).appointment?.id === appointmentId,
  ).length;

const tool = (name: string, args: Record<string, unknown>, callId: string) =>
  callTool(server.url, demo.voiceToken, name, args, { headers: { 'x-call-id': callId } });

describe('tool retries', () => {
  it('in one call, book → cancel → book of the same slot books a new appointment', async () => {
    const callId = `bcb-${Date.now()}`;
    const args = { calendarId, start: nextStart(), patientId: patients[0] };
    const first = await tool('book_appointment', args, callId);
    expect(first.isError, first.content[0]?.text).toBeFalsy();
    const cancelled = await tool('cancel_appointment', { appointmentId: first.structuredContent.id }, callId);
    expect(cancelled.structuredContent.status).toBe('cancelled');
    const again = await tool('book_appointment', args, callId);
    expect(again.isError, again.content[0]?.text).toBeFalsy();
    expect(again.structuredContent.id).not.toBe(first.structuredContent.id);
    expect(again.structuredContent.status).toBe('scheduled');
    expect(await count('appointments', { patient_id: patients[0]!, start_at: args.start })).toBe(2);
  });

  it('in one call, hold → release → hold holds again (the call id is the holder), and no other key takes the slot', async () => {
    const callId = `hrh-${Date.now()}`;
    const args = { calendarId, start: nextStart() };
    const first = await tool('hold_slot', args, callId);
    expect(first.isError, first.content[0]?.text).toBeFalsy();
    expect(first.structuredContent.holderRef).toBe(callId);
    const released = await tool('release_hold', { holdId: first.structuredContent.id }, callId);
    expect(released.isError, released.content[0]?.text).toBeFalsy();
    const again = await tool('hold_slot', args, callId);
    expect(again.isError, again.content[0]?.text).toBeFalsy();
    expect(again.structuredContent.id).not.toBe(first.structuredContent.id);
    expect(await count('slot_holds', { id: again.structuredContent.id })).toBe(1);
    // Held again: another key (the clinic's own) finds it taken.
    const other = await server.call('POST', `/v1/calendars/${calendarId}/holds`, { token: demo.liveToken, body: { start: args.start, holderRef: 'other' } });
    expect(other.status).toBe(409);
    expect(other.body.error.details.reason).toBe('slot_taken');
  });

  it('answers a retry spelled another way with the booking, never slot_taken, and an identical retry writes nothing more', async () => {
    const callId = `spell-${Date.now()}`;
    const start = nextStart();
    expect(start).toMatch(/:00\.000Z$/);
    const first = await tool('book_appointment', { calendarId, start, patientId: patients[0] }, callId);
    expect(first.isError, first.content[0]?.text).toBeFalsy();
    const rows = await count('appointments');
    // The same instant written another way, keys in another order: the same request, replayed.
    const respelled = await tool('book_appointment', { patientId: patients[0], start: start.replace('.000Z', 'Z'), calendarId }, callId);
    expect(respelled.structuredContent).toEqual(first.structuredContent);
    // An argument more: a new attempt, which the booking answers with the patient's appointment.
    const withReason = await tool(
      'book_appointment',
      { calendarId, start: start.replace(':00.000Z', ':00+00:00'), patientId: patients[0], reason: 'controllo' },
      callId,
    );
    expect(withReason.isError, withReason.content[0]?.text).toBeFalsy();
    expect(withReason.structuredContent.id).toBe(first.structuredContent.id);
    // Identical retries of the last write.
    for (let retry = 0; retry < 2; retry++) {
      const again = await tool('book_appointment', { calendarId, start, patientId: patients[0], reason: 'controllo' }, callId);
      expect(again.structuredContent.id).toBe(first.structuredContent.id);
    }
    expect(await count('appointments')).toBe(rows);
    expect(await events('appointment.created', first.structuredContent.id)).toBe(1);
  });

  it('writes once for two identical calls sent at once', async () => {
    const callId = `twin-${Date.now()}`;
    const args = { calendarId, start: nextStart(), patientId: patients[0] };
    const rows = await count('appointments');
    const twins = await Promise.all([tool('book_appointment', args, callId), tool('book_appointment', args, callId)]);
    const ok = twins.filter((t) => !t.isError);
    expect(ok.length, twins.map((t) => t.content[0]?.text).join('\n')).toBeGreaterThan(0);
    for (const t of twins.filter((t) => t.isError)) expect(toolError(t).code).toBe('idempotency_in_progress');
    expect(await count('appointments')).toBe(rows + 1);
  });

  it('tells a model refused a hold by the caps to book directly', () => {
    const VOICE = new Set(['hand_off', 'book_appointment', 'hold_slot', 'find_slots']);
    for (const reason of ['hold_limit', 'hold_limit_calendar', 'hold_life_exceeded'])
      expect(nextStep({ code: 'conflict', message: '', details: { reason } }, VOICE)).toMatch(/book_appointment \(calendarId, start, patientId\)/);
    expect(nextStep({ code: 'conflict', message: '', details: { reason: 'not_reschedulable' } }, VOICE)).toMatch(/hand off to a person \(hand_off\)/);
  });
});

describe('REST retries without Idempotency-Key', () => {
  it('answers a second booking of the same patient and slot with 200 and the same appointment; another patient gets 409', async () => {
    const body = { calendarId, start: nextStart(), patientId: patients[0] };
    const first = await server.call('POST', '/v1/appointments', { token: demo.liveToken, body });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await server.call('POST', '/v1/appointments', { token: demo.liveToken, body: { ...body, start: body.start!.replace('.000Z', 'Z') } });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(await count('appointments', { patient_id: patients[0]!, start_at: body.start! })).toBe(1);
    expect(await events('appointment.created', first.body.id)).toBe(1);
    const other = await server.call('POST', '/v1/appointments', { token: demo.liveToken, body: { ...body, patientId: patients[1] } });
    expect(other.status).toBe(409);
    expect(other.body.error.details.reason).toBe('slot_taken');
  });

  it('answers a move to the slot the appointment already has unchanged, with no event', async () => {
    const body = { calendarId, start: nextStart(), patientId: patients[0] };
    const booked = await server.call('POST', '/v1/appointments', { token: demo.liveToken, body });
    expect(booked.status).toBe(201);
    const moved = await server.call('PATCH', `/v1/appointments/${booked.body.id}`, { token: demo.liveToken, body: { start: body.start } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ id: booked.body.id, start: body.start, updatedAt: booked.body.updatedAt });
    expect(await events('appointment.rescheduled', booked.body.id)).toBe(0);
  });
});
