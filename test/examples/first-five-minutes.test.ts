/**
 * The README's "first five minutes" (a phone call in curl, as printed), its agent's week (one
 * request) and examples/voice-agent.ts (run as a program with no argument but the key), against a
 * fresh demo clinic of `npm start`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoClinic } from '../../src/demo/clinic.js';
import { startDemoServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let server: TestServer;
let demo: DemoClinic;

beforeAll(async () => {
  ({ server, demo } = await startDemoServer());
}, 180_000);
afterAll(() => server.close());

/** The shell block of the README between the markers `name:start` and `name:end`. */
function readmeBlock(name = 'first-five-minutes'): string {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.split(`<!-- ${name}:start -->`)[1]!.split(`<!-- ${name}:end -->`)[0]!;
  return /```sh\n([\s\S]*?)```/.exec(section)![1]!;
}

describe('the first five minutes against the demo clinic', () => {
  it('the demo has what a call needs: calendars with keywords, doctors, patients, appointments', async () => {
    const calendars = await server.call('GET', '/v1/calendars', { token: demo.voiceToken });
    expect(calendars.body.data.map((c: { name: string }) => c.name).sort()).toEqual(['Controllo ortodontico', 'Igiene orale', 'Prima visita', 'Urgenze']);
    const patients = await server.ctx.db.selectFrom('patients').select('id').where('clinic_id', '=', demo.liveClinicId).execute();
    expect(patients.length).toBe(50);
    const appointments = await server.ctx.db.selectFrom('appointments').select('id').where('clinic_id', '=', demo.liveClinicId).execute();
    expect(appointments.length).toBeGreaterThan(10);
    const meta = await server.call('GET', '/v1/meta', { token: demo.voiceToken });
    expect(meta.body.key.agent).toBe('voice_agent');
  });

  it('every curl of the README works as printed', async () => {
    const { stdout, stderr } = await run('bash', ['-euo', 'pipefail', '-c', readmeBlock()], {
      env: { ...process.env, KEY: demo.voiceToken, BASE: `${server.url}/v1` },
      timeout: 60_000,
    });
    const outputs = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // The three curls not captured into a variable: context, booking, call.
    expect(outputs).toHaveLength(3);
    const [context, appointment, call] = outputs;
    expect(context.caller).toMatchObject({ match: 'patient', patients: [expect.objectContaining({ firstName: 'Giulia' })] });
    expect(appointment).toMatchObject({ status: 'scheduled', origin: 'voice', patientId: context.caller.patients[0].id });
    expect(call).toMatchObject({ outcome: 'booked', patientId: appointment.patientId });
    expect(stderr).toContain('"holderRef"');
  }, 90_000);

  it('the agent’s week in one request works as printed', async () => {
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', readmeBlock('agenda-week')], {
      env: { ...process.env, KEY: demo.voiceToken, BASE: `${server.url}/v1` },
      timeout: 60_000,
    });
    const week = JSON.parse(stdout.trim());
    expect(week).toMatchObject({ timeZone: 'Europe/Rome', facilityId: null });
    expect(week.weeks).toHaveLength(1);
    expect(week.weeks[0].weekStart).toBe(week.from);
    expect(Object.keys(week.totals)).toContain('noShowRate');
  }, 90_000);

  it('examples/voice-agent.ts runs the whole call with no argument but the key', async () => {
    const { stdout } = await run(path.join(root, 'node_modules/.bin/tsx'), ['examples/voice-agent.ts'], {
      cwd: root,
      env: { ...process.env, DCM_API_KEY: demo.voiceToken, DCM_BASE_URL: `${server.url}/v1` },
      timeout: 90_000,
    });
    const result = JSON.parse(stdout);
    expect(result.calendar.name).toBe('Igiene orale');
    expect(result.offered.length).toBeGreaterThan(0);
    expect(result.offered[0]).toMatch(/ alle \d{1,2}:\d\d$/);
    expect(result.appointment).toMatchObject({ status: 'scheduled', origin: 'voice' });
    expect(result.call.outcome).toBe('booked');
  }, 120_000);

  it('examples/mcp-voice-agent.ts runs the whole call through MCP, a new connection per tool call', async () => {
    const { stdout } = await run(path.join(root, 'node_modules/.bin/tsx'), ['examples/mcp-voice-agent.ts'], {
      cwd: root,
      env: { ...process.env, DCM_API_KEY: demo.voiceToken, DCM_MCP_URL: `${server.url}/mcp` },
      timeout: 90_000,
    });
    const result = JSON.parse(stdout);
    expect(result.caller).toBe('Giulia');
    expect(result.calendar.name).toBe('Igiene orale');
    expect(result.offered[0]).toMatch(/ alle \d{1,2}:\d\d$/);
    expect(result.appointment).toMatchObject({ status: 'scheduled', origin: 'voice' });
    expect(result.call.outcome).toBe('booked');
  }, 120_000);
});
