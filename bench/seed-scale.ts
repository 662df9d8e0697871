/**
 * A database at scale: `npm run seed:scale [-- options]` (bench/lib/scale-seed.ts says what it holds).
 *
 * `--size=full` (default: the target sizes, 10,000 clinics, 2,000,000 patients, the biggest 100,000,
 * about 20M appointments, 50M access-log rows; meant to finish under 30 minutes), `medium` (500
 * clinics, 100,000 patients) or `small` (20 clinics, 2,000 patients); any size can be changed by
 * its own option: `--clinics`, `--patients`, `--big`, `--years`, `--appointments-per-patient`,
 * `--calls-per-patient`, `--conversations-per-patient`, `--messages-per-conversation`,
 * `--tasks-per-patient`, `--quotes-per-patient`, `--payments-per-patient`,
 * `--events-per-patient`, `--endpoint-every`, `--access-log`.
 * `--database=<postgres url | name next to DATABASE_URL's>`: where (created when it does not
 * exist; migrations applied); default `dcm_scale_<size>` next to DATABASE_URL. The database is
 * kept. `--tokens=FILE` writes every clinic's id and API token (the biggest first), one a line.
 * Prints each step's rows and seconds, the total, and the rows per second.
 */
import fs from 'node:fs';
import pg from 'pg';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { benchArgs, machine } from './lib/harness.js';
import { SIZES, seedScale, type ScaleSizes } from './lib/scale-seed.js';

const args = benchArgs();
const size = args.size ?? 'full';
const preset = SIZES[size];
if (!preset) throw new Error(`--size: one of ${Object.keys(SIZES).join(', ')}`);
const sizes: ScaleSizes = { ...preset };
for (const key of Object.keys(sizes) as (keyof ScaleSizes)[]) {
  const option = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  if (args[option] !== undefined) sizes[key] = Number(args[option]);
}

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL;
  const given = args.database ?? `dcm_scale_${size}`;
  let url: string;
  if (/^postgres(ql)?:\/\//.test(given)) url = given;
  else {
    if (!base) throw new Error('seed:scale runs on PostgreSQL: set DATABASE_URL (or --database=<url>)');
    const u = new URL(base);
    u.pathname = `/${given}`;
    url = u.toString();
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [given]);
      if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${given.replace(/"/g, '')}"`);
    } finally {
      await admin.end();
    }
  }
  console.log(`${machine()}\nseeding ${url.replace(/:[^:@/]*@/, ':***@')} with ${JSON.stringify(sizes)}`);
  const database = await openDatabase({ databaseUrl: url, dataDir: null });
  try {
    await migrate(database);
    const started = Date.now();
    const seeded = await seedScale(database.db, sizes, (line) => console.log(line));
    const total = (Date.now() - started) / 1000;
    const rows = Object.values(seeded.rows).reduce((s, n) => s + n, 0);
    console.log(`total: ${rows} rows in ${total.toFixed(1)} s (${Math.round(rows / total)} rows/s); run tag ${seeded.tag}`);
    console.log(`the biggest clinic: ${seeded.tokens[0]!.clinicId}, token ${seeded.tokens[0]!.token}`);
    if (args.tokens) {
      fs.writeFileSync(args.tokens, seeded.tokens.map((t) => `${t.clinicId} ${t.token}`).join('\n') + '\n', { mode: 0o600 });
      console.log(`tokens of the ${seeded.tokens.length} clinics written to ${args.tokens}`);
    }
  } finally {
    await database.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
