/** The recall worklist: who is due, in what order, and how attempts move them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../helpers/factories.js';
import { intlReading } from '../../lib/reading.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { insertPatient } from '../../helpers/seed.js';
import { createAppointment } from '../../../src/modules/scheduling/agenda.js';
import { refreshWorklist } from '../../../src/modules/recalls/store.js';
import { sql } from 'kysely';

let server: TestServer;
let tenant: Tenant;
const DAY = 86_400_000;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
});
afterAll(() => server.close());

/** An appointment `daysFromNow` (negative: past) of this type, then set to `status`. */
async function visit(t: Tenant, patientId: string, daysFromNow: number, type: 'checkup' | 'treatment', status = 'completed', category: 'recall' | null = null) {
  const start = new Date(Date.now() + daysFromNow * DAY);
  start.setUTCMinutes(0, 0, 0);
  return visitAt(t, patientId, start, type, status, category);
}

/** An appointment at `start`, half an hour long, of this type, then set to `status`. */
async function visitAt(t: Tenant, patientId: string, start: Date, type: 'checkup' | 'treatment', status = 'completed', category: 'recall' | null = null) {
  const row = await createAppointment(server.ctx.db, await server.actor(t.clinicId), {
    patientId,
    start: start.toISOString(),
    end: new Date(start.getTime() + 1_800_000).toISOString(),
    facilityId: t.facilityIds[0],
    type,
    category,
  });
  await server.ctx.db.updateTable('appointments').set({ status }).where('id', '=', row.id).execute();
  return row.id;
}

const RULES = { categories: ['recall'], types: ['checkup'], intervalMonths: 6, maxAttemptsPerWeek: 2, quietStart: '00:00', quietEnd: '00:00' };
const setRules = (t: Tenant, rules: Record<string, unknown> = RULES) => server.admin('PUT', `/admin/v1/clinics/${t.clinicId}/recall-rules`, rules);
const due = async (t: Tenant = tenant, query = '') => {
  const res = await server.call('GET', `/v1/recalls?limit=200${query}`, { token: t.token, headers: { 'x-request-id': `recalls-${Math.random()}` } });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Array<{
    patientId: string;
    firstName: string;
    phone: string;
    dueAt: string;
    attempts: number;
    lastOutcome: string | null;
    nextAttemptAt: string;
  }>;
};
const attempt = (patientId: string, body: Record<string, unknown>, t: Tenant = tenant) =>
  server.call('POST', `/v1/recalls/${patientId}/attempts`, { token: t.token, body: { channel: 'phone', ...body } });

describe('recall worklist', () => {
  it('lists the due patients most overdue first, with what a caller needs, and logs the read', async () => {
    expect(await due()).toEqual([]); // no rules yet
    const [a, b, c, d, e, f, g] = await Promise.all(Array.from({ length: 7 }, () => insertPatient(server, tenant)));
    await visit(tenant, a!, -300, 'checkup'); // due for ~4 months
    await visit(tenant, b!, -200, 'checkup'); // due for ~1 month
    await visit(tenant, c!, -60, 'checkup'); // not yet
    await visit(tenant, d!, -300, 'checkup');
    await visit(tenant, d!, 10, 'checkup', 'scheduled'); // booked already
    await visit(tenant, e!, -300, 'checkup');
    await server.ctx.db.insertInto('conversations').values({ id: crypto.randomUUID(), clinic_id: tenant.clinicId, patient_id: e!, opted_out: true }).execute();
    await visit(tenant, f!, -300, 'checkup');
    await server.ctx.db.updateTable('patients').set({ is_active: false }).where('id', '=', f!).execute();
    await visit(tenant, g!, -300, 'treatment'); // not a recall type
    expect((await setRules(tenant)).status).toBe(200);

    const list = await due();
    expect(list.map((r) => r.patientId)).toEqual([a, b]);
    expect(Object.keys(list[0]!).sort()).toEqual(
      [
        'attempts',
        'due',
        'dueAt',
        'dueAtLocal',
        'facilityId',
        'firstName',
        'lastAttemptAt',
        'lastAttemptAtLocal',
        'lastOutcome',
        'lastVisitAt',
        'lastVisitAtLocal',
        'nextAttemptAt',
        'nextAttemptAtLocal',
        'patientId',
        'phone',
      ].sort(),
    );
    // Each time with its clinic-local reading (Europe/Rome), the one not yet attempted null.
    const row = list[0] as unknown as Record<string, string>;
    for (const field of ['lastVisitAt', 'dueAt', 'nextAttemptAt']) expect(row[`${field}Local`]).toEqual(intlReading(row[field]!));
    expect(row.lastAttemptAtLocal).toBeNull();
    expect(list[0]).toMatchObject({ firstName: 'Paziente', attempts: 0, due: { category: null, type: 'checkup' } });
    // dueBefore looks ahead: c is due in about four months.
    expect((await due(tenant, `&dueBefore=${new Date(Date.now() + 200 * DAY).toISOString()}`)).map((r) => r.patientId)).toContain(c);
    const logged = await server.ctx.db
      .selectFrom('access_log_entries')
      .selectAll()
      .where('clinic_id', '=', tenant.clinicId)
      .where('resource_type', '=', 'patient')
      .execute();
    expect(logged.some((l) => l.resource_ids.includes(a!) && l.fields.includes('phone'))).toBe(true);

    // Page by page without dueBefore: each page reads up to its own now, the cursor is not refused.
    const first = await server.call('GET', '/v1/recalls?limit=1', { token: tenant.token });
    expect(first.body.data.map((r: { patientId: string }) => r.patientId)).toEqual([a]);
    const second = await server.call('GET', `/v1/recalls?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`, { token: tenant.token });
    expect(second.status, second.text).toBe(200);
    expect(second.body.data.map((r: { patientId: string }) => r.patientId)).toEqual([b]);

    // A visit completed since the worklist was computed takes the patient out at once.
    await visit(tenant, b!, -1, 'checkup');
    expect((await due()).map((r) => r.patientId)).toEqual([a]);
  });

  it('makes a patient due at the last visit plus the interval in calendar months, listed strictly before dueBefore', async () => {
    const t = await server.factories.tenant();
    const [atTheInstant, aDayBefore, aMinuteBefore, aDayAfter, monthEnd] = await Promise.all(Array.from({ length: 5 }, () => insertPatient(server, t)));
    // Six months before 15 March 2025, 09:00 UTC is 15 September 2024, 09:00 (181 days: months, not days).
    await visitAt(t, atTheInstant!, new Date('2024-09-15T09:00:00Z'), 'checkup');
    await visitAt(t, aDayBefore!, new Date('2024-09-14T09:00:00Z'), 'checkup');
    await visitAt(t, aMinuteBefore!, new Date('2024-09-15T08:59:00Z'), 'checkup');
    await visitAt(t, aDayAfter!, new Date('2024-09-16T09:00:00Z'), 'checkup');
    // A month's last day goes to the last day of the shorter month.
    await visitAt(t, monthEnd!, new Date('2024-08-31T09:00:00Z'), 'checkup');
    expect((await setRules(t)).status).toBe(200);
    const dueBefore = async (instant: string) =>
      (await due(t, `&dueBefore=${encodeURIComponent(instant)}`)).map((r) => [r.patientId, r.dueAt] as [string, string]);

    expect(await dueBefore('2025-03-15T09:00:00.000Z')).toEqual([
      [monthEnd, '2025-02-28T09:00:00.000Z'],
      [aDayBefore, '2025-03-14T09:00:00.000Z'],
      [aMinuteBefore, '2025-03-15T08:59:00.000Z'],
    ]);
    // Due at the instant itself: listed a millisecond later.
    expect((await dueBefore('2025-03-15T09:00:00.001Z')).map(([id]) => id)).toEqual([monthEnd, aDayBefore, aMinuteBefore, atTheInstant]);
    expect((await dueBefore('2025-03-16T09:00:00.000Z')).map(([id]) => id)).not.toContain(aDayAfter);
    expect(await dueBefore('2025-03-16T09:00:00.001Z')).toContainEqual([aDayAfter, '2025-03-16T09:00:00.000Z']);
  });

  it('adds the months to the UTC wall time, whatever time zone the database session is in', async () => {
    const t = await server.factories.tenant();
    const patient = await insertPatient(server, t);
    // In Rome 15 September is summer time and 15 March is not: months added in that zone would
    // move the due instant an hour (10:00 UTC).
    await visitAt(t, patient, new Date('2024-09-15T09:00:00Z'), 'checkup');
    expect((await setRules(t)).status).toBe(200);
    const dueAt = await server.ctx.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL TimeZone = 'Europe/Rome'`.execute(trx);
      await refreshWorklist(trx, t.clinicId);
      return (
        await trx.selectFrom('recall_worklist').select('due_at').where('clinic_id', '=', t.clinicId).where('patient_id', '=', patient).executeTakeFirstOrThrow()
      ).due_at;
    });
    expect(new Date(dueAt).toISOString()).toBe('2025-03-15T09:00:00.000Z');
  });

  it('attempts move patients: no_answer snoozes, callback makes a recall task, opted_out and wrong_number remove, booked removes', async () => {
    const t = await server.factories.tenant();
    await setRules(t);
    const people = await Promise.all(Array.from({ length: 5 }, () => insertPatient(server, t)));
    for (const p of people) await visit(t, p, -300, 'checkup');
    await setRules(t);
    expect((await due(t)).length).toBe(5);
    const [noAnswer, callback, optOut, wrong, booked] = people as [string, string, string, string, string];

    const first = await attempt(noAnswer, { outcome: 'no_answer', externalCallId: 'call-1' }, t);
    expect(first.status, first.text).toBe(201);
    const replay = await attempt(noAnswer, { outcome: 'no_answer', externalCallId: 'call-1' }, t);
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(first.body.id);
    expect((await attempt(callback, { outcome: 'no_answer', externalCallId: 'call-1' }, t)).body.error.details.reason).toBe('external_call_id_used');

    const when = new Date(Date.now() + 2 * DAY).toISOString();
    const cb = await attempt(callback, { outcome: 'callback', callbackAt: when }, t);
    expect(cb.status, cb.text).toBe(201);
    const task = await server.call('GET', `/v1/tasks/${cb.body.taskId}`, { token: t.token });
    expect(task.body).toMatchObject({ type: 'recall', patientId: callback, dueDate: when });
    const created = await server.ctx.db.selectFrom('events').select('data').where('clinic_id', '=', t.clinicId).where('type', '=', 'task.created').execute();
    expect(created.map((e) => (e.data as { id: string }).id)).toContain(cb.body.taskId);

    await attempt(optOut, { outcome: 'opted_out', channel: 'sms' }, t);
    await attempt(wrong, { outcome: 'wrong_number' }, t);
    const appointment = await visit(t, booked, 20, 'treatment', 'scheduled', 'recall');
    expect((await attempt(booked, { outcome: 'booked', appointmentId: appointment }, t)).status).toBe(201);
    expect(await due(t)).toEqual([]);

    // A person clears the opt-out; a corrected phone brings the wrong number back.
    expect((await server.admin('DELETE', `/admin/v1/clinics/${t.clinicId}/recalls/${optOut}/opt-out`)).status).toBe(204);
    await server.ctx.db.updateTable('patients').set({ phone: '+393339998877' }).where('id', '=', wrong).execute();
    expect((await due(t)).map((r) => r.patientId).sort()).toEqual([optOut, wrong].sort());
    const back = (await due(t)).find((r) => r.patientId === optOut)!;
    expect(back).toMatchObject({ attempts: 1, lastOutcome: 'opted_out' });

    const attempts = await server.call('GET', `/v1/recalls/${noAnswer}/attempts`, { token: t.token });
    expect(attempts.body.data.map((x: { outcome: string }) => x.outcome)).toEqual(['no_answer']);
  });

  it('names every wrong field, writes nothing on refusal, and caps attempts per week', async () => {
    const t = await server.factories.tenant();
    const [p, other] = await Promise.all([insertPatient(server, t), insertPatient(server, t)]);
    await visit(t, p, -300, 'checkup');
    await setRules(t);
    const foreign = await visit(t, other, 5, 'checkup', 'scheduled');
    const bad = await attempt(p, { outcome: 'booked', appointmentId: foreign, callbackAt: new Date(Date.now() + DAY).toISOString() }, t);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['appointmentId', 'callbackAt']);
    const past = await attempt(p, { outcome: 'callback', callbackAt: new Date(Date.now() - DAY).toISOString() }, t);
    expect(past.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['callbackAt']);
    expect((await server.call('GET', `/v1/recalls/${p}/attempts`, { token: t.token })).body.data).toEqual([]);

    // Two attempts in 7 days (the rule's limit) push the next allowed one a week after the first.
    const rows = [new Date(Date.now() - 3 * DAY), new Date(Date.now() - 2 * DAY)];
    for (const created_at of rows)
      await server.ctx.db
        .insertInto('recall_attempts')
        .values({ id: crypto.randomUUID(), clinic_id: t.clinicId, patient_id: p, channel: 'phone', outcome: 'declined', created_at })
        .execute();
    const [row] = await due(t);
    expect(Date.parse(row!.nextAttemptAt)).toBe(rows[0]!.getTime() + 7 * DAY);
  });

  it('another clinic sees nothing (404) and bad rules are refused', async () => {
    const stranger = await server.factories.tenant();
    const p = await insertPatient(server, tenant);
    expect((await attempt(p, { outcome: 'no_answer' }, stranger)).status).toBe(404);
    expect((await server.call('GET', `/v1/recalls/${p}/attempts`, { token: stranger.token })).status).toBe(404);
    expect(await due(stranger)).toEqual([]);
    const bad = await setRules(tenant, { ...RULES, categories: [], types: [], quietStart: '25:00' });
    expect(bad.status).toBe(400);
  });
});
