/** The benchmarks' `--dataset` and `--tokens` (bench/lib/dataset.ts): where they point, and what they refuse with which words. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { datasetLocation, datasetUrl, readTokens } from '../../bench/lib/dataset.js';
import { emptyTestDatabase } from '../helpers/databases.js';

const BASE = 'postgres://bench:secret@db.example:5433/postgres?sslmode=disable';

describe('--dataset, read', () => {
  it('takes a URL as is, and a name as the database of that name next to DATABASE_URL’s', () => {
    expect(datasetLocation('postgresql://u@h/d', BASE)).toEqual({ databaseUrl: 'postgresql://u@h/d', dataDir: null });
    expect(datasetLocation('dcm_scale_small', BASE)).toEqual({
      databaseUrl: 'postgres://bench:secret@db.example:5433/dcm_scale_small?sslmode=disable',
      dataDir: null,
    });
  });

  it('takes an existing folder as a PGlite data folder only where the benchmark can open one', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcm-dataset-test-'));
    try {
      expect(datasetLocation(dir, BASE, true)).toEqual({ databaseUrl: null, dataDir: dir });
      expect(() => datasetLocation(dir, BASE)).toThrow(/neither a postgres:\/\/ URL nor a database name/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says a name needs DATABASE_URL when there is none', () => {
    expect(() => datasetLocation('dcm_scale_small', undefined)).toThrow(/needs DATABASE_URL/);
  });
});

describe.runIf(process.env.DATABASE_URL)('--dataset on PostgreSQL', () => {
  it('resolves the name of a migrated database next to DATABASE_URL’s to its URL', async () => {
    const template = process.env.DCM_TEST_TEMPLATE!; // migrated once per run (test/helpers/global-setup.ts)
    const url = await datasetUrl(template, process.env.DATABASE_URL);
    expect(new URL(url).pathname).toBe(`/${template}`);
  });

  it('names a missing database and how to make one', async () => {
    await expect(datasetUrl('dcm_no_such_dataset', process.env.DATABASE_URL)).rejects.toThrow(
      /no database "dcm_no_such_dataset" on .*npm run seed:scale -- --database=dcm_no_such_dataset/,
    );
  });

  it('refuses a database without the service’s tables', async () => {
    const empty = await emptyTestDatabase('dataset');
    try {
      await expect(datasetUrl(empty.url!)).rejects.toThrow(/migrations not applied/);
    } finally {
      await empty.close();
    }
  });
});

describe('--tokens', () => {
  it('reads seed:scale’s file, clinic id then token a line, in its order', () => {
    const file = path.join(os.tmpdir(), `dcm-tokens-${process.pid}.txt`);
    fs.writeFileSync(file, 'c-big dcm_live_aaa\nc-2 dcm_live_bbb\n\n');
    try {
      expect([...readTokens(file)]).toEqual([
        ['c-big', 'dcm_live_aaa'],
        ['c-2', 'dcm_live_bbb'],
      ]);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('is required with --dataset where keys are needed, and must exist', () => {
    expect(() => readTokens(undefined)).toThrow(/--dataset needs --tokens=FILE/);
    expect(() => readTokens('/nonexistent/tokens.txt')).toThrow(/no such file/);
  });
});
