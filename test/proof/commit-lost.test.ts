/**
 * A COMMIT whose answer is lost (PostgreSQL only): the service reaches its database through a
 * TCP proxy (test/helpers/pg-fault-proxy.ts) that cuts the connection of one request's work
 * around its COMMIT. Cut after the COMMIT went out, PostgreSQL commits and the service sees only
 * its connection end (503); cut before, PostgreSQL rolls the work back. Either way the client
 * sends the same request again with the same Idempotency-Key, as the spec tells it to after a
 * 503, and the work must have run exactly once: never twice when it committed (the retry is
 * `409 conflict` reason `response_lost`), and once more when it did not (the retry runs it).
 * The same through an agent's tool call retried with the same call id (the tool-call ledger
 * takes the same key again: src/db/IDEMPOTENCY.md, rules 5 and 7).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeContext, createContext } from '../../src/bootstrap.js';
import { createApiKey } from '../../src/modules/auth/index.js';
import { SCOPES } from '../../src/modules/auth/scopes.js';
import { callTool, toolError } from '../agents/mcp-client.js';
import { dedicatedDatabase } from '../helpers/databases.js';
import type { Tenant } from '../helpers/factories.js';
import { PgFaultProxy, type Cut } from '../helpers/pg-fault-proxy.js';
import { ENGINE, startTestServer, type TestServer } from '../helpers/server.js';

let proxy: PgFaultProxy;
let server: TestServer;
let tenant: Tenant;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  if (ENGINE !== 'postgres') return;
  const database = await dedicatedDatabase(process.env.DATABASE_URL!, `dcm_t_${process.env.DCM_TEST_RUN}`, process.env.DCM_TEST_TEMPLATE);
  cleanups.push(() => database.drop());
  const target = new URL(database.url);
  proxy = new PgFaultProxy(target.hostname, Number(target.port || 5432));
  const through = new URL(database.url);
  through.port = String(await proxy.listen());
  cleanups.push(() => proxy.close());
  server = await startTestServer({
    open: async (config) => {
      // As openTestContext does: DB_PREPARE_AFTER and DB_WIRE_SPEEDUPS of the run (the COMMIT goes by either protocol).
      const dbPrepareAfter = Number(process.env.DB_PREPARE_AFTER ?? config.dbPrepareAfter);
      const dbWireSpeedUps = process.env.DB_WIRE_SPEEDUPS === undefined ? config.dbWireSpeedUps : !/^(0|false|off|no)$/i.test(process.env.DB_WIRE_SPEEDUPS);
      const ctx = await createContext({ ...config, databaseUrl: through.toString(), dbPrepareAfter, dbWireSpeedUps }, { skipMigrations: true });
      return { ctx, drop: () => closeContext(ctx) };
    },
  });
  cleanups.push(() => server.close());
  tenant = await server.factories.tenant();
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function tasksTitled(title: string): Promise<number> {
  const rows = await server.ctx.db.selectFrom('tasks').select('id').where('clinic_id', '=', tenant.clinicId).where('title', '=', title).execute();
  return rows.length;
}

/** A task created with `key` while the proxy cuts its work's COMMIT as `cut`: the answer the client got. */
async function createCut(cut: Cut, title: string, key: string) {
  const cutDone = proxy.arm(cut, title);
  const answer = await server.call('POST', '/v1/tasks', { token: tenant.token, body: { title }, headers: { 'idempotency-key': key } });
  await cutDone;
  return answer;
}

describe.skipIf(ENGINE !== 'postgres')('a COMMIT whose answer is lost', () => {
  it('that committed: the retry with the same key runs nothing (409 response_lost), one task', async () => {
    const title = `commit lost ${randomUUID()}`;
    const first = await createCut('after_commit', title, 'k-after-commit');
    expect(first.status, first.text).toBe(503);
    expect(first.body.error.code).toBe('unavailable');
    expect(await tasksTitled(title)).toBe(1); // PostgreSQL committed: only the answer was lost
    for (let i = 0; i < 2; i++) {
      const retry = await server.call('POST', '/v1/tasks', { token: tenant.token, body: { title }, headers: { 'idempotency-key': 'k-after-commit' } });
      expect(retry.status, retry.text).toBe(409);
      expect(retry.body.error.code).toBe('conflict');
      expect(retry.body.error.details.reason).toBe('response_lost');
    }
    expect(await tasksTitled(title)).toBe(1);
  });

  it('that did not reach PostgreSQL: the work rolled back, and the retry with the same key runs it once', async () => {
    const title = `commit cut ${randomUUID()}`;
    const first = await createCut('before_commit', title, 'k-before-commit');
    expect(first.status, first.text).toBe(503);
    expect(await tasksTitled(title)).toBe(0);
    const retry = await server.call('POST', '/v1/tasks', { token: tenant.token, body: { title }, headers: { 'idempotency-key': 'k-before-commit' } });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await tasksTitled(title)).toBe(1);
    const replay = await server.call('POST', '/v1/tasks', { token: tenant.token, body: { title }, headers: { 'idempotency-key': 'k-before-commit' } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(retry.body.id);
    expect(await tasksTitled(title)).toBe(1);
  });

  it('through an agent tool call retried with the same call id: one task, and the agent is told to read it rather than try again', async () => {
    const agent = await createApiKey(server.ctx.db, tenant.clinicId, { name: 'voce', scopes: [...SCOPES], agent: 'voice_agent' });
    const title = `agent commit lost ${randomUUID()}`;
    const args = { title, callId: `call-${randomUUID()}` };
    const cutDone = proxy.arm('after_commit', title);
    const first = await callTool(server.url, agent.token, 'create_task', args);
    await cutDone;
    expect(toolError(first).code).toBe('unavailable');
    expect(await tasksTitled(title)).toBe(1);
    const retry = toolError(await callTool(server.url, agent.token, 'create_task', args));
    expect(retry.details.reason).toBe('response_lost');
    expect(retry.nextStep).toMatch(/already done/);
    expect(await tasksTitled(title)).toBe(1);
  });
});
