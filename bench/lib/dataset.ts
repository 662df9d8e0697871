/**
 * `--dataset=…` and `--tokens=FILE`, as every benchmark reads them: an existing database (one
 * `npm run seed:scale` made, say) instead of the benchmark's own fresh seed.
 *
 * `--dataset` is a PostgreSQL URL, the name of a database next to DATABASE_URL's, or (bench:plans
 * only) a PGlite data folder. `--tokens` is the file seed:scale's `--tokens=FILE` wrote: each
 * clinic's id and API token, one clinic a line, the biggest first. The rows a benchmark calls
 * (clinics, their calendars, patients' names and phones) are read here with SQL from the
 * benchmark's side (free slots through the calendars module's own rule), so its server process
 * only opens the database and serves.
 */
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { DB } from '../../src/db/schema.js';
import { openDatabase } from '../../src/db/database.js';
import { bookableWindow, calendarOfClinic, freeSlots as calendarFreeSlots, MAX_WINDOW_DAYS } from '../../src/modules/calendars/index.js';
import { generateSecret } from '../../src/modules/webhooks/index.js';
import type { Person } from './search-corpus.js';

/** Where `--dataset` points: a PostgreSQL URL, or a PGlite folder (when `folders` allows one). */
interface DatasetLocation {
  databaseUrl: string | null;
  dataDir: string | null;
}

/**
 * `given` as a location, without touching the database: a URL as is, an existing folder as a
 * PGlite data folder (if `folders`), else a database name put in DATABASE_URL's place.
 */
export function datasetLocation(given: string, base: string | undefined, folders = false): DatasetLocation {
  if (/^postgres(ql)?:\/\//.test(given)) return { databaseUrl: given, dataDir: null };
  if (folders && fs.existsSync(given)) return { databaseUrl: null, dataDir: given };
  if (!/^[A-Za-z_][A-Za-z0-9_$-]*$/.test(given))
    throw new Error(`--dataset=${given}: neither a postgres:// URL${folders ? ', an existing folder' : ''} nor a database name`);
  if (!base) throw new Error(`--dataset=${given}: a database name needs DATABASE_URL, to find the server it is on (or give a postgres:// URL)`);
  const url = new URL(base);
  url.pathname = `/${given}`;
  return { databaseUrl: url.toString(), dataDir: null };
}

/** A URL without its password, for messages. */
const shownUrl = (url: string) => url.replace(/:[^:@/]*@/, ':***@');

/**
 * The PostgreSQL URL of `--dataset`, checked: the database exists and (unless `migrated` is
 * false: bench:plans migrates it) is migrated, it has the service's tables. Benchmarks that run
 * a server process need a URL, not a folder.
 */
export async function datasetUrl(given: string, base: string | undefined = process.env.DATABASE_URL, migrated = true): Promise<string> {
  const { databaseUrl } = datasetLocation(given, base);
  const url = databaseUrl!;
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    const name = decodeURIComponent(new URL(url).pathname.slice(1));
    if ((error as { code?: string }).code === '3D000')
      throw new Error(
        `--dataset=${given}: there is no database "${name}" on ${shownUrl(url)}; make one with \`npm run seed:scale -- --database=${name} --tokens=FILE\``,
        { cause: error },
      );
    throw new Error(`--dataset=${given}: cannot connect to ${shownUrl(url)}: ${(error as Error).message}`, { cause: error });
  }
  try {
    if (!migrated) return url;
    const { rows } = await client.query<{ migrated: boolean }>(`SELECT to_regclass('clinics') IS NOT NULL AND to_regclass('patients') IS NOT NULL AS migrated`);
    if (!rows[0]!.migrated)
      throw new Error(`--dataset=${given}: ${shownUrl(url)} has no clinics nor patients tables: not a database of this service (migrations not applied)`);
  } finally {
    await client.end();
  }
  return url;
}

/** `--tokens=FILE`: clinic id → API token, in the file's order (seed:scale writes the biggest clinic first). */
export function readTokens(file: string | undefined): Map<string, string> {
  if (!file) throw new Error('--dataset needs --tokens=FILE (the file `npm run seed:scale -- --tokens=FILE` wrote): the API keys to call with');
  if (!fs.existsSync(file)) throw new Error(`--tokens=${file}: no such file`);
  const tokens = new Map<string, string>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const [clinicId, token] = line.trim().split(/\s+/);
    if (clinicId && token) tokens.set(clinicId, token);
  }
  if (tokens.size === 0) throw new Error(`--tokens=${file}: no "<clinic id> <token>" line`);
  return tokens;
}

/** A clinic of the dataset to call: its key, its first active calendar and its size. */
interface DatasetClinic {
  clinicId: string;
  /** Its token of `--tokens` ('' when the benchmark calls no route and reads none). */
  token: string;
  patients: number;
  facilityId: string;
  /** The facility's phone: the number a caller dials. */
  facilityPhone: string | null;
  calendarId: string;
  calendarDoctorIds: string[];
  slotMinutes: number;
}

/** A query on the dataset from the benchmark's side, on a connection of its own. */
export async function withDataset<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The PostgreSQL server's memory settings, printed beside a figure measured on it (a dataset's latency depends on them). */
export async function postgresSettings(url: string): Promise<string> {
  return withDataset(url, async (client) => {
    const { rows } = await client.query<{ name: string; setting: string }>(
      `SELECT name, current_setting(name) AS setting FROM unnest(ARRAY['server_version', 'shared_buffers', 'effective_cache_size', 'autovacuum']) AS name`,
    );
    return `PostgreSQL ${rows.map((r) => (r.name === 'server_version' ? r.setting : `${r.name} ${r.setting}`)).join(', ')}`;
  });
}

/**
 * `count` clinics of the dataset that have a token (when `tokens` is given) and an active
 * calendar: the one with the most patients first, then others drawn at random (the calls' spread
 * over clinics is the benchmark's: bench:voice sends a tenth to the first).
 */
export async function datasetClinics(url: string, tokens: Map<string, string> | null, count: number): Promise<DatasetClinic[]> {
  return withDataset(url, async (client) => {
    const { rows } = await client.query<{ clinic_id: string; patients: number }>(
      `SELECT clinic_id, count(*)::int AS patients FROM patients WHERE ($1::uuid[] IS NULL OR clinic_id = ANY($1::uuid[])) AND erased_at IS NULL GROUP BY clinic_id`,
      [tokens ? [...tokens.keys()] : null],
    );
    if (rows.length === 0)
      throw new Error(
        tokens ? 'none of the clinics of --tokens has patients in --dataset: the tokens file is of another dataset' : '--dataset has no clinic with patients',
      );
    const sized = rows.sort((a, b) => b.patients - a.patients);
    const [biggest, ...others] = sized;
    for (let i = others.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [others[i], others[j]] = [others[j]!, others[i]!];
    }
    const chosen = [biggest!, ...others.slice(0, Math.max(0, count - 1))];
    const calendars = await client.query<{
      clinic_id: string;
      id: string;
      facility_id: string;
      phone: string | null;
      doctor_ids: string[];
      slot_minutes: number;
    }>(
      `SELECT DISTINCT ON (c.clinic_id) c.clinic_id, c.id, c.facility_id, f.phone, c.doctor_ids, c.slot_minutes
       FROM calendars c JOIN facilities f ON f.id = c.facility_id
       WHERE c.clinic_id = ANY($1::uuid[]) AND c.active AND cardinality(c.doctor_ids) > 0
       ORDER BY c.clinic_id, c.created_at, c.id`,
      [chosen.map((c) => c.clinic_id)],
    );
    const byClinic = new Map(calendars.rows.map((r) => [r.clinic_id, r]));
    return chosen.flatMap((c) => {
      const cal = byClinic.get(c.clinic_id);
      if (!cal) return [];
      return [
        {
          clinicId: c.clinic_id,
          token: tokens?.get(c.clinic_id) ?? '',
          patients: c.patients,
          facilityId: cal.facility_id,
          facilityPhone: cal.phone,
          calendarId: cal.id,
          calendarDoctorIds: cal.doctor_ids,
          slotMinutes: cal.slot_minutes,
        },
      ];
    });
  });
}

/** A patient of the dataset as a caller: what the voice agent hears and the search finds. */
interface DatasetPerson {
  id: string;
  firstName: string;
  lastName: string;
  phone: string | null;
}

/** Up to `perClinic` patients of each clinic, drawn at random. */
export async function datasetPeople(url: string, clinicIds: string[], perClinic: number): Promise<Map<string, DatasetPerson[]>> {
  return withDataset(url, async (client) => {
    const { rows } = await client.query<{ clinic_id: string; id: string; first_name: string; last_name: string; phone: string | null }>(
      `SELECT c.id AS clinic_id, p.id, p.first_name, p.last_name, p.phone
       FROM unnest($1::uuid[]) AS c(id)
       CROSS JOIN LATERAL (SELECT id, first_name, last_name, phone FROM patients WHERE clinic_id = c.id AND erased_at IS NULL AND archived_at IS NULL ORDER BY random() LIMIT $2) AS p`,
      [clinicIds, perClinic],
    );
    const out = new Map<string, DatasetPerson[]>(clinicIds.map((id) => [id, []]));
    for (const r of rows) out.get(r.clinic_id)!.push({ id: r.id, firstName: r.first_name, lastName: r.last_name, phone: r.phone });
    return out;
  });
}

/**
 * Up to `limit` free slots of a calendar, (doctor, start) from now to its horizon, earliest first,
 * as the service finds them (the calendars module's `freeSlots`, a doctor at a time, a window of
 * at most MAX_WINDOW_DAYS at a time, within what the calendar lets anyone book): what a booking
 * with a doctor named can take without a 409.
 */
export async function freeSlots(url: string, clinicId: string, calendarId: string, limit: number): Promise<Array<{ doctorId: string; start: string }>> {
  const database = await openDatabase({ databaseUrl: url, dataDir: null, poolMax: 1 });
  try {
    const { db } = database;
    const cal = await calendarOfClinic(db, clinicId, calendarId);
    if (!cal) throw new Error(`--dataset: no calendar ${calendarId} in clinic ${clinicId}`);
    const { timezone } = await db.selectFrom('clinics').select('timezone').where('id', '=', clinicId).executeTakeFirstOrThrow();
    const now = Date.now();
    const horizon = now + cal.horizon_days * 86_400_000;
    const free: Array<{ doctorId: string; start: string }> = [];
    for (const doctorId of cal.doctor_ids) {
      let found = 0;
      for (let from = now; from < horizon && found < limit; from += MAX_WINDOW_DAYS * 86_400_000) {
        const window = bookableWindow(cal, new Date(from), new Date(Math.min(horizon, from + MAX_WINDOW_DAYS * 86_400_000)), new Date(now));
        if (!window) continue;
        for (const slot of await calendarFreeSlots(db, cal, timezone, window, { doctorId })) {
          free.push({ doctorId, start: slot.start });
          found++;
        }
      }
    }
    return free.sort((x, y) => x.start.localeCompare(y.start) || x.doctorId.localeCompare(y.doctorId)).slice(0, limit);
  } finally {
    await database.close();
  }
}

/**
 * The patients of a dataset's clinic as bench:search's corpus (bench/lib/search-corpus.ts'
 * Person, `index` its place in the list), and each one's id: the queries are made from them.
 * Those with a phone, a tax code, an email and a birth date: every shape can be made of them.
 */
export async function datasetCorpus(url: string, clinicId: string): Promise<{ people: Person[]; ids: string[] }> {
  return withDataset(url, async (client) => {
    const { rows } = await client.query<{
      id: string;
      first_name: string;
      last_name: string;
      phone: string | null;
      tax_code: string | null;
      email: string | null;
      dob: string | null;
    }>(
      `SELECT id, first_name, last_name, phone, tax_code, email, to_char(date_of_birth, 'YYYY-MM-DD') AS dob
       FROM patients WHERE clinic_id = $1 AND erased_at IS NULL AND archived_at IS NULL
         AND phone IS NOT NULL AND tax_code IS NOT NULL AND email IS NOT NULL AND date_of_birth IS NOT NULL
       ORDER BY id`,
      [clinicId],
    );
    return {
      people: rows.map((r, index) => ({
        index,
        first: r.first_name,
        last: r.last_name,
        phone: r.phone ?? '',
        taxCode: r.tax_code ?? '',
        email: r.email ?? '',
        dob: r.dob ?? '',
      })),
      ids: rows.map((r) => r.id),
    };
  });
}

/**
 * A webhook destination at `urlOf(i)` for the `i`-th of `clinics` (a dataset's), for `events`,
 * made with the clinic's oldest live key; a clinic without one is left out. The benchmark deletes
 * them at its end (dropDestinations), so no later run's worker delivers to a receiver gone.
 */
export async function addDestinations(
  db: Kysely<DB>,
  clinics: DatasetClinic[],
  urlOf: (i: number) => string,
  events: string[],
): Promise<Array<{ clinicId: string; endpointId: string }>> {
  const out: Array<{ clinicId: string; endpointId: string }> = [];
  for (const [i, c] of clinics.entries()) {
    const key = await db
      .selectFrom('api_keys')
      .select('id')
      .where('clinic_id', '=', c.clinicId)
      .where('revoked_at', 'is', null)
      .orderBy('created_at')
      .executeTakeFirst();
    if (!key) continue;
    const endpointId = randomUUID();
    await db
      .insertInto('webhook_endpoints')
      .values({ id: endpointId, clinic_id: c.clinicId, api_key_id: key.id, url: urlOf(i), events, secret: generateSecret() })
      .execute();
    out.push({ clinicId: c.clinicId, endpointId });
  }
  return out;
}

/** Deletes (as the service does: deleted_at, disabled) the destinations addDestinations made. */
export async function dropDestinations(db: Kysely<DB>, endpointIds: string[]): Promise<void> {
  if (endpointIds.length > 0)
    await db.updateTable('webhook_endpoints').set({ deleted_at: new Date(), enabled: false }).where('id', 'in', endpointIds).execute();
}
