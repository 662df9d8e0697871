/**
 * Once per test run: the build (dist/) and a migrated database that every test file copies, so files start fast
 * and never collide. PGlite: a data-folder snapshot in a temp file. PostgreSQL
 * (DATABASE_URL set): a template database; each file creates its own database from it.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';

/** `npm run build`: the process tests run the compiled service and CLI, as `npm start` does. */
function build(): void {
  const root = path.resolve(import.meta.dirname, '../..');
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/copy-build-assets.mjs'], { cwd: root, stdio: 'inherit' });
}

export default async function setup() {
  build();
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  process.env.DCM_TEST_RUN = runId;
  const baseUrl = process.env.DATABASE_URL;
  if (baseUrl) {
    const template = `dcm_tpl_${runId}`;
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${template}`);
    const url = new URL(baseUrl);
    url.pathname = `/${template}`;
    const database = await openDatabase({ databaseUrl: url.toString(), dataDir: null });
    await migrate(database);
    await database.close();
    process.env.DCM_TEST_TEMPLATE = template;
    // Every statement marked prepared() runs prepared from its first run, in this process's
    // servers and in the ones the tests start (src/db/prepared-statements.ts; 1,000 by default).
    process.env.DB_PREPARE_AFTER ??= '1';
    return async () => {
      const { rows } = await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`dcm_%${runId}%`]);
      for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
      await admin.end();
    };
  }
  const database = await openDatabase({ databaseUrl: null, dataDir: null });
  await migrate(database);
  const blob = await database.dumpDataDir!();
  const file = path.join(os.tmpdir(), `dcm-snapshot-${runId}.tar`);
  fs.writeFileSync(file, Buffer.from(await blob.arrayBuffer()));
  await database.close();
  process.env.DCM_TEST_SNAPSHOT = file;
  return async () => fs.rmSync(file, { force: true });
}
