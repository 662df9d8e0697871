/**
 * `dental-clinic listen --forward-to` and `dental-clinic trigger <event-type>`,
 * against a real server reached over HTTP (DCM_URL): a test clinic's events arrive at a local
 * receiver signed exactly as real deliveries, with the secret listen printed; a live clinic is
 * refused; a real destination on http:// or loopback is refused with a message saying how to
 * test locally.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleData } from '../../src/event-schemas.js';
import { assertEventData } from '../../src/events/validate.js';
import { verifyWebhook } from '../../src/modules/webhooks/verify.js';
import { ROOT, waitFor } from '../helpers/process.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../modules/webhooks/helpers.js';

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

function cli(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, DCM_URL: server.url, ADMIN_TOKEN, LOG_LEVEL: 'silent' };
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/dental-clinic.mjs'), ...args], { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, done, out: () => stdout, err: () => stderr };
}

describe('webhooks on a developer machine', () => {
  it('listen forwards a test clinic’s events, signed as real deliveries with the secret it prints; trigger makes them', async () => {
    const t = await server.factories.tenant({ mode: 'test' });
    const listen = cli(['listen', '--clinic', t.clinicId, '--forward-to', `${receiver.url}/hooks`, '--max-events', '2', '--json']);
    await waitFor(() => listen.out().includes('"secret"'), 60_000, 'listen to start');
    const { secret } = JSON.parse(listen.out().split('\n')[0]!) as { secret: string };
    expect(secret).toMatch(/^whsec_/);

    const first = cli(['trigger', 'appointment.created', '--clinic', t.clinicId, '--json']);
    expect(await first.done, first.err()).toBe(0);
    const event = JSON.parse(first.out()) as { id: string; type: string };
    expect(event.type).toBe('appointment.created');
    const second = cli(['trigger', 'patient.created', '--clinic', t.clinicId, '--facility', t.facilityIds[0]!]);
    expect(await second.done, second.err()).toBe(0);

    expect(await listen.done, listen.err()).toBe(0);
    const got = receiver.received.filter((r) => r.path === '/hooks');
    expect(got.map((r) => r.body.type)).toEqual(['appointment.created', 'patient.created']);
    for (const r of got) {
      const verified = verifyWebhook(r.raw, r.headers, [secret]);
      expect(verified.idempotencyKey).toBe(r.body.id);
      expect(Object.keys(r.body)).toEqual(['id', 'eventId', 'type', 'createdAt', 'apiVersion', 'livemode', 'facilityId', 'data']);
      expect(r.body.livemode).toBe(false);
      expect(r.headers['user-agent']).toBe('Service-Webhooks/1');
    }
    expect(got[0]!.body.eventId).toBe(event.id);
    expect(got[1]!.body.facilityId).toBe(t.facilityIds[0]);
    // A sample has its type's real shape (the documented example), with fresh ids and the event's facility.
    for (const r of got) {
      const type = r.body.type as 'appointment.created' | 'patient.created';
      expect(() => assertEventData(type, r.body.data)).not.toThrow();
      expect(Object.keys(r.body.data).sort()).toEqual(Object.keys(exampleData(type)).sort());
      expect(r.body.data.id).not.toBe(exampleData(type).id);
      expect(r.body.data.facilityId).toBe(r.body.facilityId);
    }
    expect(got[0]!.body.data).toMatchObject({ status: 'scheduled', startTime: expect.any(String), endTime: expect.any(String) });
    expect(got[1]!.body.data.facilityId).toBe(t.facilityIds[0]);
    const lines = listen
      .out()
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l));
    expect(lines.map((l: { status: number }) => l.status)).toEqual([200, 200]);
  });

  it('refuses a live clinic, and a real destination on http:// or loopback says how to test locally', async () => {
    const live = await server.factories.tenant();
    const trigger = cli(['trigger', 'task.created', '--clinic', live.clinicId]);
    expect(await trigger.done).toBe(2);
    expect(trigger.err()).toContain('listen and trigger work on a test clinic only');
    const direct = await server.admin('POST', `/admin/v1/clinics/${live.clinicId}/events`, { type: 'task.created' });
    expect(direct.status).toBe(403);
    expect(direct.body).toMatchObject({ error: { code: 'forbidden', details: { reason: 'live_clinic' } } });

    for (const url of ['http://hooks.example.com/dental', 'https://127.0.0.1/hooks', 'https://localhost/hooks']) {
      const res = await server.call('POST', '/v1/webhook-endpoints', { token: live.token, body: { url, events: ['task.created'] } });
      expect(res.status, url).toBe(400);
      expect(JSON.stringify(res.body), url).toContain('dental-clinic listen --forward-to http://localhost:4000/hooks');
    }
  });
});
