/**
 * Commands on many records, with progress on stderr: importing patients from a file and
 * filling a demo clinic. Both go through the back-office import operation in chunks, so
 * every rule (validation, duplicates, plan limit, events.skipped for bulk) applies.
 */
import fs from 'node:fs';
import type { AppContext } from '../../context.js';
import { createDemoClinic } from '../../modules/clinics/demo.js';
import { openAdminApi } from '../admin-api.js';
import type { Command } from '../commands.js';
import { printResult, progress } from '../output.js';
import { describeApiError } from '../support.js';

const CHUNK = 500;

async function importInChunks(ctx: AppContext, clinicId: string, patients: unknown[], label: string): Promise<string[]> {
  const api = await openAdminApi(ctx);
  const op = api.operations.find((o) => o.operationId === 'adminImportPatients');
  if (!op) throw new Error('the patient import operation is not available');
  const ids: string[] = [];
  try {
    progress(0, patients.length, label);
    for (let start = 0; start < patients.length; start += CHUNK) {
      const chunk = patients.slice(start, start + CHUNK);
      const res = await api.call(op, { clinicId }, { patients: chunk });
      if (res.status >= 300) {
        const e = res.body?.error ?? {};
        const where = `rows ${start + 1}-${start + chunk.length}`;
        throw new Error(
          `${where}: ${describeApiError(e.code ?? String(res.status), e.message ?? '', e.details ?? null)} (rows before ${start + 1} were imported)`,
        );
      }
      ids.push(...((res.body?.ids ?? res.body?.data?.map((p: { id: string }) => p.id) ?? []) as string[]));
      progress(Math.min(start + CHUNK, patients.length), patients.length, label);
    }
  } finally {
    await api.close();
  }
  return ids;
}

const FIRST = ['Giulia', 'Marco', 'Francesca', 'Luca', 'Chiara', 'Matteo', 'Sara', 'Nicolò', 'Elena', 'Andrea', 'Martina', 'Davide'];
const LAST = [
  'Rossi',
  'Russo',
  'Ferrari',
  'Esposito',
  'Bianchi',
  'Romano',
  'Colombo',
  'Ricci',
  'Marino',
  'Greco',
  'Bruno',
  'Gallo',
  'Conti',
  'De Luca',
  'Mancini',
];

function demoPatients(count: number): unknown[] {
  return Array.from({ length: count }, (_, i) => ({
    firstName: FIRST[i % FIRST.length],
    lastName: `${LAST[Math.floor(i / FIRST.length) % LAST.length]}${i >= FIRST.length * LAST.length ? ` ${Math.floor(i / (FIRST.length * LAST.length)) + 1}` : ''}`,
    phone: `+39 3${String(30 + (i % 60)).padStart(2, '0')} ${String(1_000_000 + i).slice(-7)}`,
    dateOfBirth: `${1950 + (i % 55)}-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
  }));
}

export const bulkCommands: Command[] = [
  {
    name: 'patients import',
    summary: 'Import patients from a JSON file (an array of patient inputs), with progress',
    options: {
      clinic: { type: 'string', description: 'Clinic id', required: true },
      file: { type: 'string', description: 'JSON file: an array of patients as POST /v1/patients takes them', required: true },
    },
    async run(ctx, args, json) {
      let patients: unknown;
      try {
        patients = JSON.parse(fs.readFileSync(String(args.file), 'utf8'));
      } catch (error) {
        throw new Error(`cannot read ${String(args.file)}: ${(error as Error).message}`, { cause: error });
      }
      if (!Array.isArray(patients) || patients.length === 0) throw new Error('the file must hold a non-empty JSON array of patients');
      const ids = await importInChunks(ctx, String(args.clinic), patients, 'importing patients');
      printResult(json ? { imported: ids.length, ids } : { imported: ids.length }, json);
    },
  },
  {
    name: 'demo data',
    summary: 'Create a demo clinic (live and test twin), its keys and synthetic patients (--patients 0: none), with progress',
    options: { patients: { type: 'string', description: 'How many patients (default 200)' } },
    async run(ctx, args, json) {
      const count = args.patients === undefined ? 200 : Number(args.patients);
      if (!Number.isInteger(count) || count < 0 || count > 100_000) throw new Error('--patients must be a whole number from 0 to 100000');
      const demo = await createDemoClinic(ctx.db);
      const ids = count ? await importInChunks(ctx, demo.liveClinicId, demoPatients(count), 'creating patients') : [];
      printResult({ ...demo, patients: ids.length }, json);
    },
  },
];
