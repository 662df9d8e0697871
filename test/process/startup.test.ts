/**
 * Operations: a start-up failure is one line naming the cause and the
 * variable, a non-zero exit, no stack; `--role=api` or `--role=worker` on the embedded database
 * refuses to start; the first start on PostgreSQL says how to make the first clinic and key;
 * LOG_FORMAT=pretty; one log line per request with no key, token or query value in it.
 * The processes run the built service (dist/, what `npm start` runs).
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, serviceNodeFlags, startService, waitFor, type ServiceProcess } from '../helpers/process.js';
import { startTestServer } from '../helpers/server.js';

const PG = 'postgres://postgres@127.0.0.1:5432';
const running: ServiceProcess[] = [];
afterAll(() => {
  for (const p of running) p.child.kill('SIGKILL');
});

/** Exit code, and the output as lines; asserts it is one `error:` line without a stack. */
async function refusal(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; line: string }> {
  const p = startService(env, args);
  running.push(p);
  const code = await p.exited;
  const lines = p.output().trim().split('\n');
  expect(lines, p.output()).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  expect(p.output()).not.toMatch(/\n\s+at /);
  return { code, line: lines[0]! };
}

describe("Node's options", () => {
  it('are the same for npm start, start:api and start:worker (a role started alone runs as the whole service does)', () => {
    const flags = serviceNodeFlags('start');
    // A larger young generation: under load on an uncached list page, scavenges were a fifth of
    // the server's CPU with V8's default 16 MB semi-space (docs/performance.md, "What bounds a request").
    expect(flags).toContain('--max-semi-space-size=32');
    expect(serviceNodeFlags('start:api')).toEqual(flags);
    expect(serviceNodeFlags('start:worker')).toEqual(flags);
  });
});

describe('start-up failures: one line, the variable, a non-zero exit', () => {
  it('refuses --role=api and --role=worker on the embedded database (nothing would deliver webhooks)', async () => {
    for (const role of ['api', 'worker']) {
      const { code, line } = await refusal({ DATA_DIR: '/nonexistent/never-created' }, [`--role=${role}`]);
      expect(code).toBe(2);
      expect(line).toContain('DATABASE_URL');
      expect(line).toContain('npm start');
    }
  });

  it('names DATABASE_URL when PostgreSQL refuses the connection or the database is missing', async () => {
    const refused = await refusal({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test' });
    expect(refused.code).toBe(1);
    expect(refused.line).toBe('error: DATABASE_URL: PostgreSQL at 127.0.0.1:1 refused the connection: is it running, on that port?');
    const missing = await refusal({ DATABASE_URL: `${PG}/dcm_missing_${randomBytes(4).toString('hex')}` });
    expect(missing.code).toBe(1);
    expect(missing.line).toMatch(/^error: DATABASE_URL: the database "dcm_missing_[0-9a-f]+" does not exist on 127\.0\.0\.1:5432: create it/);
  });

  it('names PORT when the port is taken, and a bad variable by its name', async () => {
    const blocker = net.createServer();
    const port = await freePort();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r));
    try {
      const taken = await refusal({ DATA_DIR: `/tmp/dcm-port-${randomBytes(4).toString('hex')}`, PORT: String(port), SEED_DEMO: 'false' });
      expect(taken.code).toBe(1);
      expect(taken.line).toBe(`error: PORT: port ${port} is in use by another process: stop it or choose another PORT`);
    } finally {
      blocker.close();
    }
    const bad = await refusal({ LOG_FORMAT: 'fancy' });
    expect(bad.code).toBe(2);
    expect(bad.line).toContain('LOG_FORMAT');
  });
});

describe('the first start on PostgreSQL', () => {
  it('says how to make the first clinic and its key, and LOG_FORMAT=pretty logs for people', async () => {
    const name = `dcm_first_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: `${PG}/postgres` });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      const p = startService({ DATABASE_URL: `${PG}/${name}`, PORT: String(await freePort()), LOG_FORMAT: 'pretty' });
      running.push(p);
      await waitFor(() => /INFO.*started/.test(p.output()), 120_000, 'the start');
      expect(p.output()).toContain('No clinic yet.');
      expect(p.output()).toContain('npx dental-clinic clinics create --name');
      expect(p.output()).toContain('npx dental-clinic keys create --clinic');
      expect(p.output()).not.toContain('{"level"');
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});

describe('the request log', () => {
  it('writes one line per request: method, route, status, duration, clinic, request id; never a key, a token or a query value', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        done();
      },
    });
    const server = await startTestServer({ appOptions: { logger: { level: 'info', stream } } });
    try {
      const t = await server.factories.tenant();
      const res = await server.call('GET', '/v1/patients/search?q=Rossi%201975', { token: t.token, headers: { 'x-request-id': 'req-log-test-1' } });
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      const mine = lines.filter((l) => JSON.stringify(l).includes('req-log-test-1'));
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        msg: 'request',
        method: 'GET',
        route: '/v1/patients/search',
        status: 200,
        clinicId: t.clinicId,
        requestId: 'req-log-test-1',
      });
      expect(typeof mine[0]!.durationMs).toBe('number');
      const all = JSON.stringify(lines);
      expect(all).not.toContain(t.token);
      expect(all).not.toContain('Rossi');
      expect(all).not.toMatch(/authorization/i);
    } finally {
      await server.close();
    }
  });
});
