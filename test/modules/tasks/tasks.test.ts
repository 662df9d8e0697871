import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refused, issuePaths } from '../../helpers/refused.js';
import type { operations } from '../../../packages/client/src/schema.js';
import type { Tenant } from '../../helpers/factories.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../../helpers/server.js';
import { insertPatient } from '../../helpers/seed.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

const FIELDS = ['assigneeId', 'createdAt', 'dueDate', 'facilityId', 'id', 'patientId', 'status', 'title', 'type', 'updatedAt'];

// Typed calls (the project's client, generated OpenAPI types).
const getTask = (id: string) => server.api(t.token).callWithResponse('getTask', { params: { path: { id } } });
type TaskPatch = operations['updateTask']['requestBody']['content']['application/json'];

async function createTask(body: Record<string, unknown>, tenant = t) {
  const res = await server.admin('POST', `/admin/v1/clinics/${tenant.clinicId}/tasks`, body);
  expect(res.status, res.text).toBe(201);
  // Distinct updated_at instants, so the order of creation is the list order.
  await new Promise((r) => setTimeout(r, 3));
  return res.body;
}

describe('tasks', () => {
  it('creates with task.created and reads with exactly the 2.9 fields', async () => {
    const p = await insertPatient(server, t);
    const task = await createTask({
      title: 'Richiamare per preventivo',
      patientId: p,
      assigneeId: t.staffId,
      dueDate: '2030-01-10T09:00:00+01:00',
      type: 'recall',
    });
    expect(task).toMatchObject({
      status: 'todo',
      patientId: p,
      facilityId: t.facilityIds[0],
      assigneeId: t.staffId,
      dueDate: '2030-01-10T08:00:00.000Z',
      type: 'recall',
    });
    const res = await getTask(task.id);
    expect(res.response.status).toBe(200);
    expect(Object.keys(res.data).sort()).toEqual(FIELDS);
    expect(res.response.headers.get('etag')).toBe('"1"');
    const ev = await server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', t.clinicId).where('type', '=', 'task.created').execute();
    expect(ev.map((e) => (e.data as any).id)).toContain(task.id);
    expect(JSON.stringify(ev[0]!.data)).not.toContain('preventivo');
  });

  it('lists with filters, in update order, with paging', async () => {
    const tt = await server.factories.tenant();
    const p = await insertPatient(server, tt);
    const a = await createTask({ title: 'A', assigneeId: tt.staffId, dueDate: '2030-01-01T00:00:00Z' }, tt);
    const b = await createTask({ title: 'B', patientId: p, dueDate: '2030-02-01T00:00:00Z' }, tt);
    const c = await createTask({ title: 'C', status: 'done' }, tt);
    const get = (query: NonNullable<operations['listTasks']['parameters']['query']> = {}) => server.api(tt.token).call('listTasks', { params: { query } });
    expect((await get()).data.map((x) => x.id)).toEqual([a.id, b.id, c.id]);
    expect((await get({ status: 'done' })).data.map((x) => x.id)).toEqual([c.id]);
    expect((await get({ assigneeId: tt.staffId })).data.map((x) => x.id)).toEqual([a.id]);
    expect((await get({ patientId: p })).data.map((x) => x.id)).toEqual([b.id]);
    expect((await get({ dueBefore: '2030-02-01T00:00:00Z' })).data.map((x) => x.id)).toEqual([a.id]);
    const page1 = await get({ limit: 2 });
    expect(page1.data).toHaveLength(2);
    const page2 = await get({ limit: 2, cursor: page1.nextCursor! });
    expect(page2.data.map((x) => x.id)).toEqual([c.id]);
    expect(page2.nextCursor).toBeNull();
    // A status outside the contract's list: raw.
    const bad = await server.call('GET', '/v1/tasks?status=open&dueBefore=tomorrow&limit=500', { token: tt.token });
    expect(bad.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['dueBefore', 'limit', 'status']);
  });

  it('patches only the fields sent, clears with null, checks the assignee and If-Match, and records task.completed once', async () => {
    const task = await createTask({ title: 'Da fare', assigneeId: t.staffId, dueDate: '2030-03-01T10:00:00Z' });
    const patch = (body: TaskPatch, headers?: Record<string, string>) =>
      server.api(t.token).callWithResponse('updateTask', { params: { path: { id: task.id } }, body, headers });
    const r1 = await patch({ title: 'Nuovo titolo' }, { 'if-match': '"1"' });
    expect(r1.response.status).toBe(200);
    expect(r1.data).toMatchObject({ title: 'Nuovo titolo', assigneeId: t.staffId, dueDate: '2030-03-01T10:00:00.000Z', status: 'todo' });
    expect(r1.response.headers.get('etag')).toBe('"2"');
    const stale = await refused(patch({ status: 'done' }, { 'if-match': '"1"' }));
    expect(stale.status).toBe(409);
    expect(stale.reason).toBe('version_mismatch');
    const r2 = await patch({ dueDate: null, assigneeId: null });
    expect(r2.data).toMatchObject({ dueDate: null, assigneeId: null, title: 'Nuovo titolo' });

    const other = await server.factories.tenant();
    const bad = await refused(patch({ assigneeId: other.staffId, title: '' }));
    expect(bad.status).toBe(400);
    expect(issuePaths(bad)).toEqual(['title']);
    const foreign = await refused(patch({ assigneeId: other.staffId }));
    expect(foreign.status).toBe(400);
    expect(issuePaths(foreign)).toEqual(['assigneeId']);
    // A null title is outside the contract: raw.
    expect((await server.call('PATCH', `/v1/tasks/${task.id}`, { token: t.token, body: { title: null } })).status).toBe(400);
    expect((await refused(patch({}))).status).toBe(400);

    expect((await patch({ status: 'done' })).data.status).toBe('done');
    expect((await patch({ status: 'done' })).response.status).toBe(200);
    const completed = await server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', t.clinicId).where('type', '=', 'task.completed').execute();
    expect(completed.filter((e) => (e.data as any).id === task.id)).toHaveLength(1);
    const current = await getTask(task.id);
    expect(current.data).toMatchObject({ status: 'done', assigneeId: null, dueDate: null });
  });

  it('back office refuses a foreign assignee and a bad body naming every field', async () => {
    const other = await server.factories.tenant();
    const res = await server.call('POST', `/admin/v1/clinics/${t.clinicId}/tasks`, {
      token: ADMIN_TOKEN,
      body: { title: 'x', assigneeId: other.staffId, patientId: crypto.randomUUID() },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: any) => i.path).sort()).toEqual(['assigneeId', 'patientId']);
  });
});
