/**
 * The demo clinic of `npm start` on a fresh machine: one organization with a live clinic
 * and its test twin, two facilities each, and a key of each kind with every scope. Both get
 * the same doctors, calendars, patients, appointments and payment plan (agenda.ts), so
 * the README's call works with the test key too and `listen` has bookings to show; the live
 * clinic also gets a voice agent key. `dental-clinic demo reset` puts a test clinic back to
 * this state (reset.ts).
 * Created once (tracked in server_settings); the tokens are printed only then.
 */
import type { Db } from '../db/transaction.js';
import { createApiKey, SCOPES } from '../modules/auth/index.js';
import { createClinic, anyClinic } from '../modules/clinics/index.js';
import { createFacility } from '../modules/facilities/index.js';
import { seedDemoBilling } from './billing.js';
import { seedDemoAgenda } from './agenda.js';
import { claimDemoMark } from './store.js';

interface DemoOptions {
  host: string;
  port: number;
  print: (line: string) => void;
}

export interface DemoClinic {
  liveClinicId: string;
  testClinicId: string;
  liveToken: string;
  testToken: string;
  facilityIds: string[];
  /** A voice agent key of the live clinic (the README's first five minutes use it). */
  voiceToken: string;
}

/** The two facilities of each demo clinic (also made by `dental-clinic demo data`). */
export const DEMO_FACILITIES = [
  {
    name: 'Sede di Milano',
    street: 'Via Torino 12',
    city: 'Milano',
    province: 'MI',
    zipCode: '20123',
    phone: '+390212345678',
    email: 'milano@studio-sorriso.example',
    isMainLocation: true,
    avgAppointmentMinutes: 30,
  },
  {
    name: 'Sede di Monza',
    street: 'Via Italia 3',
    city: 'Monza',
    province: 'MB',
    zipCode: '20900',
    phone: '+390392345678',
    email: 'monza@studio-sorriso.example',
    avgAppointmentMinutes: 45,
  },
];

export const DEMO_CLINIC_NAME = 'Studio Dentistico Sorriso';

async function facilitiesFor(db: Db, clinicId: string): Promise<string[]> {
  const ids: string[] = [];
  // The demo's phones are written in E.164 already: the region reads none of them.
  for (const f of DEMO_FACILITIES) ids.push((await createFacility(db, { clinicId, region: 'IT' }, f)).id);
  return ids;
}

export async function createDemoClinic(db: Db): Promise<DemoClinic> {
  const live = await createClinic(db, { name: DEMO_CLINIC_NAME, mode: 'live' });
  const test = await createClinic(db, { name: `${DEMO_CLINIC_NAME} (test)`, mode: 'test', organizationId: live.organizationId });
  const liveFacilities = await facilitiesFor(db, live.id);
  const testFacilities = await facilitiesFor(db, test.id);
  const liveKey = await createApiKey(db, live.id, { name: 'Demo live key', scopes: [...SCOPES] });
  const testKey = await createApiKey(db, test.id, { name: 'Demo test key', scopes: [...SCOPES] });
  const agenda = await seedDemoAgenda(db, live.id, liveFacilities, 'IT');
  await seedDemoBilling(db, live.id, agenda.patientIds[1]!);
  // The test twin: the same agenda (its keys are the test key alone).
  await seedTestTwin(db, test.id, testFacilities);
  return {
    liveClinicId: live.id,
    testClinicId: test.id,
    liveToken: liveKey.token,
    testToken: testKey.token,
    facilityIds: liveFacilities,
    voiceToken: agenda.voiceToken!,
  };
}

/** A test clinic's demo agenda and billing, without a new key: the first seed and every reset. */
export async function seedTestTwin(db: Db, clinicId: string, facilityIds: string[]) {
  const agenda = await seedDemoAgenda(db, clinicId, facilityIds, 'IT', { voiceKey: false });
  await seedDemoBilling(db, clinicId, agenda.patientIds[1]!);
  return agenda;
}

/** Seeds the demo once per database and prints its keys; later starts print a reminder. */
export async function seedDemoClinic(db: Db, options: DemoOptions): Promise<void> {
  const claimed = await claimDemoMark(db);
  const base = `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${options.port}`;
  if (!claimed) {
    options.print(`Demo clinic already created. Docs: ${base}/docs  (new key: npm run cli -- keys create --help)`);
    return;
  }
  const demo = await createDemoClinic(db);
  const p = options.print;
  p('');
  p('Demo clinic created: "Studio Dentistico Sorriso" (live) and its test twin, two facilities each.');
  p(`  live key (every scope): ${demo.liveToken}`);
  p(`  test key (every scope): ${demo.testToken}`);
  p(`  voice agent key:        ${demo.voiceToken}`);
  p('  These tokens are shown only now: keep them.');
  p('');
  p('Try it:');
  p(`  curl -s -H "Authorization: Bearer ${demo.liveToken}" ${base}/v1/facilities/${demo.facilityIds[0]}`);
  p('  A whole phone call with the voice agent key: README.md, "The first five minutes".');
  p(`Docs: ${base}/docs`);
  p('');
}

/** On PostgreSQL (no demo): while there is no clinic yet, each start says how to make the first one and its key. */
export async function printFirstSteps(db: Db, print: (line: string) => void): Promise<void> {
  if (await anyClinic(db)) return;
  print('');
  print('No clinic yet. Make the first clinic and its API key with the CLI, on the same DATABASE_URL:');
  print('  npx dental-clinic clinics create --name "Studio Dentistico Rossi"');
  print('  npx dental-clinic keys create --clinic <the id printed above> --name "Integrazione" --scopes all');
  print('The token is printed once. `npx dental-clinic demo data` makes a demo clinic with keys and patients instead.');
  print('');
}
