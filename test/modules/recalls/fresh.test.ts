/**
 * The recall list is fresh: a visit completed or entered as completed by any road shows at once,
 * not at the hourly refresh, and the hourly refresh agrees with what the roads wrote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { insertPatient } from '../../helpers/seed.js';
import { refreshRecallWorklists } from '../../../src/modules/recalls/index.js';

let server: TestServer;
let t: Tenant;
const DAY = 86_400_000;
const RULES = { categories: ['recall'], types: ['checkup'], intervalMonths: 6, maxAttemptsPerWeek: 2, quietStart: '00:00', quietEnd: '00:00' };

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
  expect((await server.admin('PUT', `/admin/v1/clinics/${t.clinicId}/recall-rules`, RULES)).status).toBe(200);
});
afterAll(() => server.close());

const base = () => `/admin/v1/clinics/${t.clinicId}/appointments`;
const due = async () => {
  const res = await server.call('GET', '/v1/recalls?limit=200', { token: t.token, headers: { 'x-request-id': `fresh-${Math.random()}` } });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Array<{ patientId: string; lastVisitAt: string; dueAt: string; due: { type: string | null } }>;
};
const ids = async () => (await due()).map((r) => r.patientId).sort();

/** A past visit entered in the back office, `daysAgo` days ago, half an hour. */
async function enter(patientId: string, daysAgo: number, extra: Record<string, unknown> = {}) {
  const start = new Date(Date.now() - daysAgo * DAY);
  start.setUTCMinutes(0, 0, 0);
  const res = await server.admin('POST', base(), {
    patientId,
    start: start.toISOString(),
    end: new Date(start.getTime() + 1_800_000).toISOString(),
    facilityId: t.facilityIds[0],
    type: 'checkup',
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; start: string };
}
const setStatus = async (id: string, status: string) => {
  const res = await server.admin('POST', `${base()}/${id}/status`, { status });
  expect(res.status, res.text).toBe(200);
};

describe('a completed visit reaches the recall list at once', () => {
  it('through the status change to completed', async () => {
    const p = await insertPatient(server, t);
    const visit = await enter(p, 300);
    expect(await ids()).not.toContain(p);
    await setStatus(visit.id, 'checked_in');
    expect(await ids()).not.toContain(p); // checked in is not completed
    await setStatus(visit.id, 'completed');
    const row = (await due()).find((r) => r.patientId === p);
    expect(row).toMatchObject({ lastVisitAt: visit.start, due: { type: 'checkup' } });
  });

  it('through a past visit entered as completed (an imported history), the latest visit counting', async () => {
    const p = await insertPatient(server, t);
    await enter(p, 400, { status: 'completed' });
    const later = await enter(p, 250, { status: 'completed' });
    expect((await due()).find((r) => r.patientId === p)?.lastVisitAt).toBe(later.start);
    // A visit completed two months ago moves the patient out: due in four months.
    await enter(p, 60, { status: 'completed' });
    expect(await ids()).not.toContain(p);
  });

  it('refuses a completed visit that has not started, naming start, and writes nothing', async () => {
    const p = await insertPatient(server, t);
    const start = new Date(Date.now() + DAY);
    const res = await server.admin('POST', base(), {
      patientId: p,
      start: start.toISOString(),
      end: new Date(start.getTime() - 1).toISOString(),
      status: 'completed',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['end', 'start']);
    expect(await server.ctx.db.selectFrom('appointments').select('id').where('patient_id', '=', p).execute()).toEqual([]);
  });

  it('through a change of a completed visit: a type the rules count brings the patient in, another takes them out', async () => {
    const p = await insertPatient(server, t);
    const visit = await enter(p, 300, { status: 'completed', type: 'treatment' });
    expect(await ids()).not.toContain(p);
    const counted = await server.admin('PATCH', `${base()}/${visit.id}`, { type: 'checkup' });
    expect(counted.status, counted.text).toBe(200);
    expect(await ids()).toContain(p);
    expect((await server.admin('PATCH', `${base()}/${visit.id}`, { type: 'treatment' })).status).toBe(200);
    expect(await ids()).not.toContain(p);
    expect((await server.admin('PATCH', `${base()}/${visit.id}`, { category: 'recall' })).status).toBe(200);
    expect(await ids()).toContain(p);
  });

  it('the hourly refresh agrees with the roads, and still brings in a visit written around them', async () => {
    const before = await due();
    const p = await insertPatient(server, t);
    const row = await enter(p, 280);
    // A write outside the scheduling commands (a repair in SQL): the hourly job finds it.
    await server.ctx.db.updateTable('appointments').set({ status: 'completed' }).where('id', '=', row.id).execute();
    expect(await ids()).not.toContain(p);
    await refreshRecallWorklists(server.ctx.db);
    const after = await due();
    expect(after.map((r) => r.patientId).sort()).toEqual([...before.map((r) => r.patientId), p].sort());
    // The rows the roads wrote are what the job computes from the visits.
    const visits = (list: typeof before) => list.map((r) => [r.patientId, r.lastVisitAt, r.dueAt, r.due]).sort();
    expect(visits(after.filter((r) => r.patientId !== p))).toEqual(visits(before));
  });

  it('without recall rules, completing a visit lists nobody', async () => {
    const other = await server.factories.tenant();
    const p = await insertPatient(server, other);
    const start = new Date(Date.now() - 300 * DAY);
    const res = await server.admin('POST', `/admin/v1/clinics/${other.clinicId}/appointments`, {
      patientId: p,
      start: start.toISOString(),
      end: new Date(start.getTime() + 1_800_000).toISOString(),
      type: 'checkup',
      status: 'completed',
    });
    expect(res.status, res.text).toBe(201);
    expect(await server.ctx.db.selectFrom('recall_worklist').select('patient_id').where('clinic_id', '=', other.clinicId).execute()).toEqual([]);
  });
});
