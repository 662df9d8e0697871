/**
 * The server side of `npm run bench:voice`, in a process of its own so the callers do not share
 * its event loop: opens a fresh database (DATABASE_URL, or PGlite in a temporary folder), seeds
 * BENCH_CLINICS clinics (the first with BENCH_BIG patients, the others BENCH_SMALL each; past
 * appointments as many; bench/lib/seed.ts) each with opening hours, four doctors, a calendar of
 * 15-minute slots and a voice agent key, then listens on a random loopback port and prints one
 * JSON line `{"ready": …}`. Serves until SIGTERM.
 * BENCH_DATASET=1 (bench:voice --dataset): DATABASE_URL is a dataset to serve as it is, migrated
 * already: nothing is seeded nor migrated, and the clinics to call are the benchmark's to read.
 */
import { SILENT_LOGGER } from '../../src/core/actor.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { tuneHeap } from '../../src/lib/heap.js';
import { createContext } from '../../src/bootstrap.js';
import { serveUntilSignal } from './serve.js';
import { testConfig } from '../../src/config.js';
import { actorEnvironment } from '../../src/context.js';
import { backOfficeActor } from '../../src/modules/clinics/index.js';
import { createApiKey } from '../../src/modules/auth/index.js';
import { createCalendar } from '../../src/modules/calendars/index.js';
import { VOICE_AGENT_SCOPES } from '../../src/demo/agenda.js';
import { createDoctor } from '../../src/modules/doctors/index.js';
import { BENCH_LIMITS } from './constants.js';
import { seedClinic } from './seed.js';

const DAY = [{ open: '00:00', close: '24:00' }];
const ALL_WEEK = { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY };

export interface VoiceBenchClinic {
  token: string;
  calendarId: string;
  patients: number;
  /** The number the callers dial (default: bench:voice's own). */
  to?: string;
  /** Who calls (a dataset's patients); without them patient i of bench/lib/seed.ts calls. */
  callers?: { name: string; phone: string }[];
}

async function main(): Promise<void> {
  tuneHeap();
  const clinics = Number(process.env.BENCH_CLINICS ?? 100);
  const big = Number(process.env.BENCH_BIG ?? 100_000);
  const small = Number(process.env.BENCH_SMALL ?? 200);
  const databaseUrl = process.env.DATABASE_URL || null;
  const dataDir = databaseUrl ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-bench-voice-'));
  const config = testConfig({ databaseUrl, dataDir: dataDir ?? './data', dbPoolMax: Number(process.env.DB_POOL_MAX ?? 10), logLevel: 'silent' });
  const dataset = process.env.BENCH_DATASET === '1';
  const ctx = await createContext(config, { skipMigrations: dataset });
  const seedStart = Date.now();
  const seeded: VoiceBenchClinic[] = [];
  for (let c = 0; c < (dataset ? 0 : clinics); c++) {
    const rows = c === 0 ? big : small;
    const s = await seedClinic(ctx.db, rows, 0);
    await ctx.db
      .updateTable('facilities')
      .set({ working_schedule: JSON.stringify(ALL_WEEK) })
      .where('id', '=', s.facilityId)
      .execute();
    const doctorIds = [s.doctorId];
    for (let d = 0; d < 3; d++)
      doctorIds.push((await createDoctor(ctx.db, s.clinicId, { firstName: 'Medico', lastName: `${d}`, facilityId: s.facilityId })).id);
    const cal = await createCalendar(ctx.db, await backOfficeActor(ctx.db, s.clinicId, actorEnvironment(ctx), 'bench-seed', SILENT_LOGGER), {
      facilityId: s.facilityId,
      name: 'Igiene orale',
      slotMinutes: 15,
      workingHours: ALL_WEEK,
      doctorIds,
      horizonDays: 60,
      keywords: ['pulizia'],
    });
    const key = await createApiKey(ctx.db, s.clinicId, { name: 'voice', scopes: [...VOICE_AGENT_SCOPES], agent: 'voice_agent' });
    seeded.push({ token: key.token, calendarId: cal.id, patients: rows });
  }
  if (!dataset) await sql`ANALYZE`.execute(ctx.db);
  const seedSeconds = (Date.now() - seedStart) / 1000;

  const app = await buildApp({ ctx, rateLimits: BENCH_LIMITS, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  serveUntilSignal(app, ctx, dataDir, { port, engine: ctx.database.engine, clinics: seeded, seedSeconds });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
