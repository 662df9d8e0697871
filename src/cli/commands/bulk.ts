/**
 * Commands on many records, with progress on stderr: importing patients from a file and
 * filling a demo clinic. Both go through the back-office import operation in chunks, so
 * every rule (validation, duplicates, plan limit, events.skipped for bulk) applies.
 */
import { FIRST_NAMES, LAST_NAMES } from '../../demo/names.js';
import fs from 'node:fs';
import { AdminCallError, request, type AdminApi } from '../admin-api.js';
import { str, type Command } from '../commands.js';
import { printResult, progress, UsageError } from '../output.js';

const CHUNK = 500;

async function importInChunks(api: AdminApi, clinicId: string, patients: unknown[], label: string): Promise<string[]> {
  const ids: string[] = [];
  progress(0, patients.length, label);
  for (let start = 0; start < patients.length; start += CHUNK) {
    const chunk = patients.slice(start, start + CHUNK);
    try {
      const res = await request(api, 'adminImportPatients', { clinicId }, { patients: chunk });
      ids.push(...(res.ids as string[]));
    } catch (error) {
      // Which rows, and that the rows before them are in: the import is one transaction per chunk.
      if (error instanceof AdminCallError)
        throw new AdminCallError(error.status, {
          ...error.error,
          message: `rows ${start + 1}-${start + chunk.length}: ${error.error.message} (rows before ${start + 1} were imported)`,
        });
      throw error;
    }
    progress(Math.min(start + CHUNK, patients.length), patients.length, label);
  }
  return ids;
}

function demoPatients(count: number): unknown[] {
  return Array.from({ length: count }, (_, i) => ({
    firstName: FIRST_NAMES[i % FIRST_NAMES.length],
    lastName: `${LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length]}${i >= FIRST_NAMES.length * LAST_NAMES.length ? ` ${Math.floor(i / (FIRST_NAMES.length * LAST_NAMES.length)) + 1}` : ''}`,
    phone: `+39 3${String(30 + (i % 60)).padStart(2, '0')} ${String(1_000_000 + i).slice(-7)}`,
    dateOfBirth: `${1950 + (i % 55)}-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
  }));
}

export const bulkCommands: Command[] = [
  {
    name: 'patients import',
    summary: 'Import patients from a JSON file (an array of patient inputs), with progress',
    options: {
      clinic: { description: 'Clinic id', example: '0f8c2a4e-7d51-4c3b-9a1e-5b6d7c8e9f01', required: true },
      file: { description: 'JSON file: an array of patients as POST /v1/patients takes them', example: 'patients.json', required: true },
    },
    notes: ['The file: [{"firstName":"Mario","lastName":"Rossi","phone":"+39 347 123 4567"}, …]. 500 rows per transaction.'],
    async run(c, args, json) {
      let patients: unknown;
      try {
        patients = JSON.parse(fs.readFileSync(String(args.file), 'utf8'));
      } catch (error) {
        throw new UsageError(`cannot read ${String(args.file)}: ${(error as Error).message}`);
      }
      if (!Array.isArray(patients) || patients.length === 0) throw new UsageError('the file must hold a non-empty JSON array of patients');
      const ids = await importInChunks(c.api, str(args.clinic)!, patients, 'importing patients');
      printResult(json ? { imported: ids.length, ids } : [{ imported: ids.length }], json);
    },
  },
  {
    name: 'demo data',
    summary: 'Create a demo clinic (live and test twin with the demo agenda), its keys and synthetic patients, with progress',
    options: { patients: { description: 'How many patients (default 200; 0: none)', example: '500' } },
    async run(c, args, json) {
      const count = args.patients === undefined ? 200 : Number(args.patients);
      if (!Number.isInteger(count) || count < 0 || count > 100_000) throw new UsageError('--patients must be a whole number from 0 to 100000');
      const { DEMO_CLINIC_NAME, DEMO_FACILITIES } = await import('../../demo/clinic.js');
      const { SCOPES } = await import('../../modules/auth/index.js');
      const live = await request(c.api, 'adminCreateClinic', {}, { name: DEMO_CLINIC_NAME, mode: 'live' });
      const test = await request(c.api, 'adminCreateClinic', {}, { name: `${DEMO_CLINIC_NAME} (test)`, mode: 'test', organizationId: live.organizationId });
      const facilityIds: string[] = [];
      for (const clinic of [live, test])
        for (const f of DEMO_FACILITIES) {
          const facility = await request(c.api, 'adminCreateFacility', { clinicId: clinic.id }, f);
          if (clinic === live) facilityIds.push(facility.id);
        }
      const liveKey = await request(c.api, 'adminCreateApiKey', { clinicId: live.id }, { name: 'Demo live key', scopes: [...SCOPES] });
      const testKey = await request(c.api, 'adminCreateApiKey', { clinicId: test.id }, { name: 'Demo test key', scopes: [...SCOPES] });
      const ids = count ? await importInChunks(c.api, live.id, demoPatients(count), 'creating patients') : [];
      // The test twin gets the demo agenda (calendars, doctors, patients, appointments), as `npm start` makes it.
      await request(c.api, 'adminResetDemoClinic', { clinicId: test.id });
      printResult(
        { liveClinicId: live.id, testClinicId: test.id, liveToken: liveKey.token, testToken: testKey.token, facilityIds, patients: ids.length },
        json,
      );
    },
  },
  {
    name: 'demo reset',
    summary: 'Put a test clinic back to its seeded demo state (its data deleted and seeded again; keys and webhooks kept)',
    options: { clinic: { description: 'Test clinic id (mode test)', example: '4f48d8c8-c342-4e1f-b8a2-6c1d2e3f4a5b', required: true } },
    notes: [
      'Deletes the clinic’s patients, appointments, calendars, doctors, leads, calls, chats, tasks, billing and documents,',
      'then seeds the demo agenda of `npm start` again (new ids). Keeps the clinic, its facilities, API keys, webhook',
      'destinations and event history. A live clinic is refused: its data is real.',
    ],
    async run(c, args, json) {
      const clinicId = str(args.clinic)!;
      const clinic = await request(c.api, 'adminGetClinic', { id: clinicId });
      if (clinic.mode !== 'test') throw new UsageError(`clinic ${clinicId} is live: demo reset works on a test clinic only (it deletes the clinic's data)`);
      const reset = await request(c.api, 'adminResetDemoClinic', { clinicId });
      printResult(
        json
          ? reset
          : [{ clinicId, patients: reset.patients, calendars: reset.calendars, deleted: Object.values<number>(reset.deleted).reduce((a, b) => a + b, 0) }],
        json,
      );
    },
  },
];
