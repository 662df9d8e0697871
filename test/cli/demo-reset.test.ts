/**
 * The demo's test twin has the live clinic's demo agenda (the README's call
 * works with the test key, and `listen` shows the booking's events), and `dental-clinic demo
 * reset --clinic <id>` (the real CLI, over HTTP to a real server) puts a test clinic back to
 * its seeded state, keeping its keys, and refuses a live clinic.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEPT_TABLES, RESET_TABLES } from '../../src/demo/store.js';
import type { DemoClinic } from '../../src/demo/clinic.js';
import { ROOT, waitFor } from '../helpers/process.js';
import { ADMIN_TOKEN, startDemoServer, type TestServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../modules/webhooks/helpers.js';

const run = promisify(execFile);
let server: TestServer;
let receiver: Receiver;
let demo: DemoClinic;

beforeAll(async () => {
  ({ server, demo } = await startDemoServer());
  receiver = await startReceiver();
}, 120_000);
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

/** The shell block of the README between the first-five-minutes markers. */
function readmeBlock(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.split('<!-- first-five-minutes:start -->')[1]!.split('<!-- first-five-minutes:end -->')[0]!;
  return /```sh\n([\s\S]*?)```/.exec(section)![1]!;
}

const count = async (table: 'patients' | 'appointments' | 'calendars' | 'api_keys' | 'events', clinicId: string) =>
  Number(
    (
      await server.ctx.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('clinic_id', '=', clinicId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('the demo test clinic', () => {
  it('has the live clinic’s agenda: calendars, patients, appointments', async () => {
    const calendars = await server.call('GET', '/v1/calendars', { token: demo.testToken });
    expect(calendars.body.data.map((c: { name: string }) => c.name).sort()).toEqual(['Controllo ortodontico', 'Igiene orale', 'Prima visita', 'Urgenze']);
    expect(await count('patients', demo.testClinicId)).toBe(50);
    expect(await count('appointments', demo.testClinicId)).toBeGreaterThan(10);
  });

  it('runs the README’s phone call with the test key, and listen shows the booking’s events', async () => {
    const listen = cli(['listen', '--clinic', demo.testClinicId, '--forward-to', `${receiver.url}/demo`, '--json']);
    try {
      await waitFor(() => listen.out().includes('"secret"'), 60_000, 'listen to start');
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', readmeBlock()], {
        env: { ...process.env, KEY: demo.testToken, BASE: `${server.url}/v1` },
        timeout: 60_000,
      });
      const [context, appointment, call] = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(context.caller).toMatchObject({ match: 'patient', patients: [expect.objectContaining({ firstName: 'Giulia' })] });
      expect(appointment).toMatchObject({ status: 'scheduled', patientId: context.caller.patients[0].id });
      expect(call).toMatchObject({ outcome: 'booked', patientId: appointment.patientId });
      await receiver.waitFor((all) => all.some((r) => r.path === '/demo' && r.body.type === 'appointment.created'), 30_000);
      const created = receiver.forPath('/demo').find((r) => r.body.type === 'appointment.created')!;
      expect(created.body.data).toMatchObject({ id: appointment.id });
    } finally {
      listen.child.kill('SIGINT');
      await listen.done;
    }
  }, 150_000);
});

describe('dental-clinic demo reset', () => {
  it('deletes what the integrator made and seeds the demo again; keys and history stay', async () => {
    const clinicId = demo.testClinicId;
    const api = server.api(demo.testToken);
    const extra = await api.call('createPatient', { body: { firstName: 'Ottavia', lastName: 'Prova', phone: '+39 340 000 1111' } });
    const calendarsBefore = (await server.call('GET', '/v1/calendars', { token: demo.testToken })).body.data.map((c: { id: string }) => c.id);
    const keysBefore = await count('api_keys', clinicId);
    const eventsBefore = await count('events', clinicId);

    const reset = cli(['demo', 'reset', '--clinic', clinicId, '--json']);
    expect(await reset.done, reset.err()).toBe(0);
    const answer = JSON.parse(reset.out());
    expect(answer).toMatchObject({ clinicId, patients: 50, calendars: 4 });
    expect(answer.deleted.patients).toBe(51);

    expect(await count('patients', clinicId)).toBe(50);
    expect(await count('appointments', clinicId)).toBeGreaterThan(10);
    const gone = await server.call('GET', `/v1/patients/${extra.id}`, { token: demo.testToken });
    expect(gone.status).toBe(404);
    // The same key works, and sees new calendars of the same names.
    const calendars = await server.call('GET', '/v1/calendars', { token: demo.testToken });
    expect(calendars.status).toBe(200);
    expect(calendars.body.data).toHaveLength(4);
    expect(calendars.body.data.some((c: { id: string }) => calendarsBefore.includes(c.id))).toBe(false);
    expect(await count('api_keys', clinicId)).toBe(keysBefore);
    expect(await count('events', clinicId)).toBeGreaterThanOrEqual(eventsBefore);
    // The caller of the README is there again, confirmed by their date of birth.
    const found = await api.call('searchPatients', { params: { query: { q: 'Giulia Rossi', birthDate: '1988-04-12' } } });
    expect(found.confirmed).toBe(true);

    // Twice in a row is the same state.
    const again = cli(['demo', 'reset', '--clinic', clinicId]);
    expect(await again.done, again.err()).toBe(0);
    expect(await count('patients', clinicId)).toBe(50);
  }, 150_000);

  it('refuses a live clinic, in the CLI and in the back office', async () => {
    const patientsBefore = await count('patients', demo.liveClinicId);
    const refused = cli(['demo', 'reset', '--clinic', demo.liveClinicId]);
    expect(await refused.done).not.toBe(0);
    expect(refused.err()).toMatch(/live.*test clinic only/);
    const res = await server.admin('POST', `/admin/v1/clinics/${demo.liveClinicId}/demo-reset`);
    expect(res.status, res.text).toBe(403);
    expect(res.body.error.details.reason).toBe('live_clinic');
    expect(await count('patients', demo.liveClinicId)).toBe(patientsBefore);
    const absent = await server.admin('POST', `/admin/v1/clinics/00000000-0000-4000-8000-000000000000/demo-reset`);
    expect(absent.status).toBe(404);
  });

  it('seeds a test clinic made by hand, making the facilities the demo needs', async () => {
    const t = await server.factories.tenant({ mode: 'test' });
    const res = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/demo-reset`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.facilityIds).toHaveLength(2);
    expect(await count('patients', t.clinicId)).toBe(50);
  }, 120_000);

  it('accounts for every table of a clinic: deleted by a reset or kept', async () => {
    const { rows } = await sql<{ table_name: string }>`
      SELECT c.table_name FROM information_schema.columns c JOIN pg_class t ON t.oid = to_regclass(quote_ident(c.table_name))
      WHERE c.column_name = 'clinic_id' AND c.table_schema = current_schema() AND NOT t.relispartition`.execute(server.ctx.db);
    const known = new Set<string>([...RESET_TABLES, ...KEPT_TABLES]);
    expect(rows.map((r) => r.table_name).filter((t) => !known.has(t))).toEqual([]);
  });
});
