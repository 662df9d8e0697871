/**
 * The real service as a process under a fault (a dependency stopped, cut or killed): calling it
 * over HTTP with a timing of each answer, starting it with a clinic and a key of every scope,
 * and the answers every fault test expects (503 unavailable with Retry-After, nothing unhandled).
 * Used by test/proof/dependency-outage.test.ts and test/proof/primary-fault.test.ts.
 */
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { expect } from 'vitest';
import { freePort, startService, type ServiceProcess } from './process.js';

const FAULT_ADMIN = 'outage-test-admin-token-0123456';

export interface Answer {
  status: number;
  ms: number;
  body: any;
  retryAfter: string | null;
}

export async function call(base: string, method: string, p: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: res.status, ms: Date.now() - started, body: parsed, retryAfter: res.headers.get('retry-after') };
}

export const readyStatus = async (base: string) => (await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(10_000) })).status;

export async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

export interface ServiceWithClinic {
  proc: ServiceProcess;
  base: string;
  token: string;
  facilityId: string;
}

/** Starts the service, waits until ready, makes a clinic with a facility and a key of every scope; `cleanups` gets its stop. */
export async function startWithClinic(env: Record<string, string>, cleanups: (() => Promise<void> | void)[]): Promise<ServiceWithClinic> {
  const port = await freePort();
  const proc = startService({ ...env, PORT: String(port), ADMIN_TOKEN: FAULT_ADMIN, SEED_DEMO: 'false', LOG_LEVEL: 'warn' });
  cleanups.push(() => stop(proc.child, 'SIGKILL'));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`the service exited with ${proc.child.exitCode}:\n${proc.output()}`);
    if ((await readyStatus(base).catch(() => 0)) === 200) break;
    if (Date.now() > deadline) throw new Error(`the service did not become ready:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, base, ...(await addClinic(base)) };
}

/**
 * A clinic with a main facility and a key of every scope, made through the back office: a test
 * that sends more than one key's budget (spec 8: 60 requests per 10 s) spreads it over clinics.
 */
export async function addClinic(base: string, name = 'Studio Guasti'): Promise<{ token: string; facilityId: string }> {
  const clinic = await call(base, 'POST', '/admin/v1/clinics', FAULT_ADMIN, { name });
  expect(clinic.status).toBe(201);
  const facility = await call(base, 'POST', `/admin/v1/clinics/${clinic.body.id}/facilities`, FAULT_ADMIN, { name: 'Sede Guasti', isMainLocation: true });
  expect(facility.status).toBe(201);
  const doc = (await call(base, 'GET', '/admin/v1/openapi.json', FAULT_ADMIN)).body;
  const scopes = doc.paths['/clinics/{clinicId}/api-keys'].post.requestBody.content['application/json'].schema.properties.scopes.items.enum;
  const key = await call(base, 'POST', `/admin/v1/clinics/${clinic.body.id}/api-keys`, FAULT_ADMIN, { name: 'guasti', scopes });
  expect(key.status).toBe(201);
  return { token: key.body.token, facilityId: facility.body.id };
}

export function expectUnavailable(answer: Answer, what: string): void {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(503);
  expect(answer.body.error.code).toBe('unavailable');
  expect(answer.body.error.requestId).toBeTruthy();
  expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
}

/** Nothing went unhandled: the process runs and never printed an unhandled error or a 500. */
export function expectNoUnhandled(proc: ServiceProcess): void {
  expect(proc.child.exitCode, proc.output()).toBeNull();
  const out = proc.output();
  expect(out).not.toMatch(/Unhandled error event|uncaught|unhandledRejection/i);
  expect(out).not.toContain('"msg":"unhandled error"');
}

/** One statement on the database at `url`, on a connection of its own. */
export async function sql<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * The read cache of facilities (src/db/read-cache.ts) is in use and follows the change feed: a
 * rename committed without its notification (triggers off) is not seen by a cached read, so the
 * cache serves (tried again until `liveBy`: the feed listens again on its own after a break); a
 * rename committed as usual is seen within 5 s. `url`: the database, reached directly.
 */
export async function expectCacheFollowsChanges(service: { base: string; token: string; facilityId: string }, url: string, liveBy: number): Promise<void> {
  const { base, token, facilityId } = service;
  const facilityName = async () => {
    const answer = await call(base, 'GET', `/v1/facilities/${facilityId}`, token);
    expect(answer.status).toBe(200);
    return answer.body.name as string;
  };
  const rename = async (name: string, announced: boolean) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      if (!announced) await client.query('SET session_replication_role = replica');
      await client.query('UPDATE facilities SET name = $1 WHERE id = $2', [name, facilityId]);
    } finally {
      await client.end();
    }
  };
  for (let i = 0; ; i++) {
    const before = await facilityName();
    await rename(`Silenziosa ${i}`, false);
    if ((await facilityName()) === before) break;
    if (Date.now() > liveBy) throw new Error('the read cache was not in use');
    await new Promise((r) => setTimeout(r, 100));
  }
  await rename('Sede rinominata', true);
  const seenBy = Date.now() + 5_000;
  while ((await facilityName()) !== 'Sede rinominata') {
    if (Date.now() > seenBy) throw new Error('a change committed as usual did not reach the read cache');
    await new Promise((r) => setTimeout(r, 20));
  }
}
