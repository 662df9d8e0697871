/**
 * Scale-out: two API processes (`--role=api`) and two worker processes
 * (`--role=worker`) on one PostgreSQL database and one Redis, as in production.
 *   - one rate-limit budget: 60 requests in a 10-second window on one key, spread over both
 *     API processes, are admitted; the 61st is refused whichever process answers;
 *   - idempotency across processes: one Idempotency-Key sent concurrently to both API
 *     processes creates one resource (when POST /patients is in the live OpenAPI);
 *   - at most 5 deliveries in flight per clinic across both workers (when webhooks exist);
 *   - installment.overdue recorded once with two schedulers (when billing exists).
 * Parts whose module is not merged yet are skipped with the reason.
 *
 * Needs DATABASE_URL (a dedicated database is created from it) and Redis at REDIS_URL
 * (default redis://127.0.0.1:6379). Run with `npm run test:cluster`.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { dedicatedDatabase } from '../helpers/databases.js';
import { freePort, startService, type ServiceProcess } from '../helpers/process.js';
import { withinOneWindow } from '../helpers/windows.js';

const BASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const ADMIN = 'cluster-admin-token-0123456789';

async function redisReachable(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect(Number(u.port || 6379), u.hostname, () => {
      s.end();
      resolve(true);
    });
    s.on('error', () => resolve(false));
    s.setTimeout(1000, () => {
      s.destroy();
      resolve(false);
    });
  });
}

const processes: ServiceProcess[] = [];
let database: { url: string; drop: () => Promise<void> } | null = null;
let dbUrl = '';
let apis: string[] = [];
let token = '';
let clinicId = '';
let facilityId = '';
let doc: any;
let skipAll: string | null = null;

async function call(base: string, method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: res.status, headers: res.headers, body };
}

async function waitReady(base: string, proc: ServiceProcess): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`a service process exited with ${proc.child.exitCode}:\n${proc.output()}`);
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`not ready:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const hasTable = async (name: string) => {
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const r = await c.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1`, [name]);
    return r.rowCount! > 0;
  } finally {
    await c.end();
  }
};

beforeAll(async () => {
  if (!BASE_URL) {
    skipAll = 'DATABASE_URL is not set: the scale-out run needs PostgreSQL (processes share nothing but the database and Redis)';
    return;
  }
  if (!(await redisReachable(REDIS_URL))) {
    skipAll = `Redis is not reachable at ${REDIS_URL}`;
    return;
  }
  database = await dedicatedDatabase(BASE_URL, 'dcm_cluster');
  dbUrl = database.url;
  const migrating = await openDatabase({ databaseUrl: dbUrl, dataDir: null });
  await migrate(migrating);
  await migrating.close();

  const env = {
    DATABASE_URL: dbUrl,
    REDIS_URL,
    ADMIN_TOKEN: ADMIN,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_RETRY_SCALE: '0.01',
  };
  const ports = [await freePort(), await freePort()];
  apis = ports.map((p) => `http://127.0.0.1:${p}`);
  const apiProcs = ports.map((p) => startService({ ...env, PORT: String(p) }, ['--role=api']));
  // Workers log at info: their "started" line is how we know they run.
  const workerProcs = [0, 1].map(() => startService({ ...env, LOG_LEVEL: 'info' }, ['--role=worker']));
  processes.push(...apiProcs, ...workerProcs);
  await Promise.all(apiProcs.map((p, i) => waitReady(apis[i]!, p)));
  await waitFor(() => workerProcs.every((w) => w.output().includes('"msg":"started"') || w.child.exitCode !== null), 90_000, 'the workers');
  for (const w of workerProcs) expect(w.child.exitCode, w.output()).toBeNull();

  const clinic = await call(apis[0]!, 'POST', '/admin/v1/clinics', { token: ADMIN, body: { name: 'Studio Cluster' } });
  expect(clinic.status).toBe(201);
  clinicId = clinic.body.id;
  const facility = await call(apis[1]!, 'POST', `/admin/v1/clinics/${clinicId}/facilities`, {
    token: ADMIN,
    body: { name: 'Sede Unica', isMainLocation: true },
  });
  expect(facility.status).toBe(201);
  facilityId = facility.body.id;
  const scopes = (await call(apis[0]!, 'GET', '/admin/v1/openapi.json', { token: ADMIN })).body;
  const scopeEnum = scopes.paths['/clinics/{clinicId}/api-keys'].post.requestBody.content['application/json'].schema.properties.scopes.items.enum;
  const key = await call(apis[0]!, 'POST', `/admin/v1/clinics/${clinicId}/api-keys`, { token: ADMIN, body: { name: 'cluster', scopes: scopeEnum } });
  expect(key.status).toBe(201);
  token = key.body.token;
  doc = (await call(apis[0]!, 'GET', '/v1/openapi.json')).body;
}, 180_000);

afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGTERM');
  await Promise.all(processes.map((p) => Promise.race([p.exited, new Promise((r) => setTimeout(r, 15_000))])));
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await database?.drop();
});

describe('two API processes and two workers on one PostgreSQL and one Redis', () => {
  it('shares one rate-limit budget: the 61st request in a 10-second window is refused by either process', async (ctx) => {
    if (skipAll) return ctx.skip(skipAll);
    // Start at the beginning of a 10-second window (windows are aligned to the epoch).
    await withinOneWindow(10, 10_000);
    const windowStart = Math.floor(Date.now() / 10_000);
    const answers: { status: number; remaining: number; via: number }[] = [];
    // 60 requests alternating between the processes, 6 at a time.
    for (let batch = 0; batch < 10; batch++) {
      const results = await Promise.all(
        Array.from({ length: 6 }, async (_, i) => {
          const via = (batch * 6 + i) % 2;
          const res = await call(apis[via]!, 'GET', `/v1/facilities/${facilityId}`, { token });
          return { status: res.status, remaining: Number(res.headers.get('x-ratelimit-remaining')), via };
        }),
      );
      answers.push(...results);
    }
    const over = [
      await call(apis[0]!, 'GET', `/v1/facilities/${facilityId}`, { token }),
      await call(apis[1]!, 'GET', `/v1/facilities/${facilityId}`, { token }),
    ];
    expect(Math.floor(Date.now() / 10_000), 'the run crossed a window boundary: the machine is too slow').toBe(windowStart);

    expect(answers.filter((a) => a.status === 200)).toHaveLength(60);
    expect(answers.filter((a) => a.via === 0)).toHaveLength(30);
    // Each process saw the other's requests: remaining counts down across both, to 0.
    expect(new Set(answers.map((a) => a.remaining)).size).toBe(60);
    expect(Math.min(...answers.map((a) => a.remaining))).toBe(0);
    for (const res of over) {
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('holds idempotency across processes: one key sent concurrently to both creates one patient', async (ctx) => {
    if (skipAll) return ctx.skip(skipAll);
    if (!doc.paths?.['/patients']?.post) return ctx.skip('POST /patients is not in the live OpenAPI yet (patients module not merged)');
    // A fresh key: the previous test spent this window's budget of the first key.
    const key2 = await call(apis[0]!, 'POST', `/admin/v1/clinics/${clinicId}/api-keys`, {
      token: ADMIN,
      body: { name: 'cluster 2', scopes: ['patients:read', 'patients:write'] },
    });
    const t2 = key2.body.token as string;
    const idem = randomUUID();
    const body = { firstName: 'Ida', lastName: `Potente ${idem.slice(0, 8)}`, phone: '+39 333 765 4321', facilityId };
    const first = await Promise.all(
      [0, 1, 0, 1].map((via) => call(apis[via]!, 'POST', '/v1/patients', { token: t2, body, headers: { 'idempotency-key': idem } })),
    );
    for (const r of first) expect([200, 201, 409], JSON.stringify(r.body)).toContain(r.status);
    for (const r of first.filter((r) => r.status === 409)) expect(r.body.error.code).toBe('idempotency_in_progress');
    const created = first.filter((r) => r.status === 201 || r.status === 200);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const ids = new Set(created.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    // After the first finished, both processes replay the same response.
    for (const via of [0, 1]) {
      const again = await call(apis[via]!, 'POST', '/v1/patients', { token: t2, body, headers: { 'idempotency-key': idem } });
      expect(again.status).toBe(created[0]!.status);
      expect(again.body.id).toBe([...ids][0]);
    }
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    const rows = await c.query(`SELECT count(*)::int AS n FROM patients WHERE clinic_id = $1 AND last_name = $2`, [clinicId, body.lastName]);
    await c.end();
    expect(rows.rows[0].n).toBe(1);
  });

  it('keeps at most 5 deliveries in flight per clinic across both workers', async (ctx) => {
    if (skipAll) return ctx.skip(skipAll);
    if (!doc.paths?.['/webhook-endpoints']?.post || !(await hasTable('webhook_deliveries'))) {
      return ctx.skip('webhooks are not merged yet (no POST /webhook-endpoints or webhook_deliveries table)');
    }
    if (!doc.paths?.['/leads']?.post) return ctx.skip('POST /leads is not merged yet: nothing to raise events with');
    // A slow receiver that counts the deliveries it holds at once.
    let inFlight = 0;
    let maxInFlight = 0;
    let received = 0;
    const receiver = http.createServer((req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      req.resume();
      setTimeout(() => {
        inFlight--;
        received++;
        res.writeHead(200).end('ok');
      }, 500);
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (receiver.address() as net.AddressInfo).port;
      const key3 = await call(apis[0]!, 'POST', `/admin/v1/clinics/${clinicId}/api-keys`, {
        token: ADMIN,
        body: { name: 'cluster 3', scopes: ['leads:read', 'leads:write', 'webhooks:read', 'webhooks:write'] },
      });
      const t3 = key3.body.token as string;
      const endpoint = await call(apis[0]!, 'POST', '/v1/webhook-endpoints', {
        token: t3,
        body: { url: `http://127.0.0.1:${port}/hook`, events: ['lead.created'], description: 'cluster' },
      });
      expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
      const events = 20;
      for (let i = 0; i < events; i++) {
        const res = await call(apis[i % 2]!, 'POST', '/v1/leads', {
          token: t3,
          body: { firstName: 'Lead', lastName: `${i}`, phone: `+39 340 000 ${String(1000 + i)}`, source: 'website' },
        });
        expect([200, 201]).toContain(res.status);
      }
      await waitFor(() => received >= events, 60_000, `${events} deliveries`);
      expect(maxInFlight).toBeGreaterThan(1);
      expect(maxInFlight).toBeLessThanOrEqual(5);
    } finally {
      receiver.close();
    }
  });

  it('records installment.overdue once with several schedulers', async (ctx) => {
    if (skipAll) return ctx.skip(skipAll);
    if (!(await hasTable('installments'))) return ctx.skip('billing is not merged yet (no installments table)');
    // A key of its own: the first test spent the shared key's budget for this window.
    const key4 = await call(apis[0]!, 'POST', `/admin/v1/clinics/${clinicId}/api-keys`, {
      token: ADMIN,
      body: { name: 'cluster 4', scopes: ['patients:write'] },
    });
    const patient = await call(apis[0]!, 'POST', '/v1/patients', {
      token: key4.body.token,
      body: { firstName: 'Rata', lastName: 'Scaduta', phone: '+39 333 111 2299', facilityId },
    });
    expect(patient.status, JSON.stringify(patient.body)).toBe(201);
    const plan = await call(apis[1]!, 'POST', `/admin/v1/clinics/${clinicId}/payment-plans`, {
      token: ADMIN,
      body: {
        patientId: patient.body.id,
        installments: [
          { amount: 100, dueDate: '2026-01-10' },
          { amount: 100, dueDate: '2026-02-10' },
          { amount: 100, dueDate: '2099-01-10' },
        ],
      },
    });
    expect(plan.status, JSON.stringify(plan.body)).toBe(201);
    // Two more schedulers start at once: each runs every job as it starts, so both look for
    // overdue installments at the same moment (the running workers tick again later).
    const env = { DATABASE_URL: dbUrl, REDIS_URL, SEED_DEMO: 'false', LOG_LEVEL: 'info' };
    const extra = [0, 1].map(() => startService(env, ['--role=worker']));
    processes.push(...extra);
    const count = async () => {
      const c = new pg.Client({ connectionString: dbUrl });
      await c.connect();
      try {
        const r = await c.query(`SELECT count(*)::int AS n FROM events WHERE clinic_id = $1 AND type = 'installment.overdue' AND data->>'paymentPlanId' = $2`, [
          clinicId,
          plan.body.id,
        ]);
        return r.rows[0].n as number;
      } finally {
        await c.end();
      }
    };
    await waitFor(() => extra.every((w) => w.output().includes('"msg":"started"')), 90_000, 'the extra schedulers');
    const start = Date.now();
    while ((await count()) < 2 && Date.now() - start < 30_000) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 3000));
    expect(await count()).toBe(2);
  }, 180_000);
});
