/** `appointment.confirmation_due`: once per appointment and rule step, at the step's time, outside the quiet hours. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../helpers/factories.js';
import { intlReading } from '../../lib/reading.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { appointmentAhead, insertPatient, moveInBackOffice } from '../../helpers/seed.js';
import { recordConfirmationsDue } from '../../../src/modules/confirmations/jobs.js';

let server: TestServer;
const HOUR = 3_600_000;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const RULES = {
  steps: [{ hoursBefore: 48 }, { hoursBefore: 24 }],
  calendarIds: [],
  categories: [],
  channels: ['sms', 'whatsapp'],
  maxAttempts: 3,
  retryAfterMinutes: 60,
  quietStart: '00:00',
  quietEnd: '00:00',
};

async function appointment(t: Tenant, hoursFromNow: number, status = 'scheduled') {
  const patientId = await insertPatient(server, t);
  return { ...(await appointmentAhead(server, t, patientId, hoursFromNow, { status })), patientId };
}

const dueEvents = async (clinicId: string) =>
  (
    await server.ctx.db
      .selectFrom('events')
      .select(['data', 'facility_id'])
      .where('clinic_id', '=', clinicId)
      .where('type', '=', 'appointment.confirmation_due')
      .orderBy('created_at')
      .execute()
  ).map((e) => e.data as { appointmentId: string; step: number; dueAt: string; start: string; label: string; channels: string[]; attempts: number });

describe('appointment.confirmation_due', () => {
  it('is recorded once per appointment and step, at the latest step whose time has come, for open appointments only', async () => {
    const t = await server.factories.tenant();
    const asked = await appointment(t, 30); // the 48-hour step passed 18 hours ago, the 24-hour one comes in 6
    await appointment(t, 30, 'confirmed');
    await appointment(t, 60); // not yet
    expect(await recordConfirmationsDue(server.ctx.db)).toBe(0); // no rules: nothing
    expect((await server.admin('PUT', `/admin/v1/clinics/${t.clinicId}/confirmation-rules`, RULES)).status).toBe(200);

    await recordConfirmationsDue(server.ctx.db);
    // Two rounds at once (two workers): still one event each.
    await Promise.all([recordConfirmationsDue(server.ctx.db), recordConfirmationsDue(server.ctx.db)]);
    let events = await dueEvents(t.clinicId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      appointmentId: asked.id,
      step: 0,
      dueAt: new Date(asked.start.getTime() - 48 * HOUR).toISOString(),
      start: asked.start.toISOString(),
      label: intlReading(asked.start).label,
      channels: ['sms', 'whatsapp'],
      attempts: 0,
    });

    // Seven hours later the 24-hour step is due: its own event, once.
    const later = new Date(Date.now() + 7 * HOUR);
    await recordConfirmationsDue(server.ctx.db, later);
    await recordConfirmationsDue(server.ctx.db, later);
    events = await dueEvents(t.clinicId);
    expect(events.map((e) => [e.appointmentId, e.step])).toEqual([
      [asked.id, 0],
      [asked.id, 1],
    ]);

    // An answer that ends the asking (confirmed) ends the events too.
    const other = await appointment(t, 20);
    const res = await server.call('POST', `/v1/appointments/${other.id}/confirmation-attempts`, {
      token: t.token,
      body: { channel: 'sms', outcome: 'confirmed' },
    });
    expect(res.status, res.text).toBe(201);
    await recordConfirmationsDue(server.ctx.db, later);
    expect((await dueEvents(t.clinicId)).some((e) => e.appointmentId === other.id)).toBe(false);
  });

  it('announces a moved appointment again at its new time', async () => {
    const t = await server.factories.tenant();
    expect((await server.admin('PUT', `/admin/v1/clinics/${t.clinicId}/confirmation-rules`, RULES)).status).toBe(200);
    const asked = await appointment(t, 30);
    await recordConfirmationsDue(server.ctx.db);
    const start = new Date(asked.start.getTime() + 2 * HOUR);
    await moveInBackOffice(server, t, asked.id, start);
    await recordConfirmationsDue(server.ctx.db);
    await recordConfirmationsDue(server.ctx.db);
    expect((await dueEvents(t.clinicId)).map((e) => [e.step, e.start])).toEqual([
      [0, asked.start.toISOString()],
      [0, start.toISOString()],
    ]);
  });

  it('waits for the end of the quiet hours', async () => {
    const t = await server.factories.tenant();
    const asked = await appointment(t, 30);
    // Quiet from a minute ago to an hour from now, in the clinic's zone.
    const hhmm = (d: Date) => intlReading(d).localTime;
    const rules = { ...RULES, quietStart: hhmm(new Date(Date.now() - 60_000)), quietEnd: hhmm(new Date(Date.now() + HOUR)) };
    expect((await server.admin('PUT', `/admin/v1/clinics/${t.clinicId}/confirmation-rules`, rules)).status).toBe(200);
    await recordConfirmationsDue(server.ctx.db);
    expect(await dueEvents(t.clinicId)).toEqual([]);
    await recordConfirmationsDue(server.ctx.db, new Date(Date.now() + HOUR + 60_000));
    expect((await dueEvents(t.clinicId)).map((e) => e.appointmentId)).toEqual([asked.id]);
  });
});
