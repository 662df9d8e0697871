/**
 * Migrations 0060 and 0061 on a clinic written before them: the vocabulary gains the words
 * of its names of several words (so "grazia de luca" reaches Maria Grazia De Luca without
 * the trigram scan that 0060 removes), and the rebuilt name indexes still find everyone.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.js';
import { migrate } from '../../../src/db/migrate.js';
import { backOffice } from '../../../src/db/tenant.js';
import { deletionKeys, normalizeName } from '../../../src/modules/patients/normalize.js';
import { searchPatients } from '../../../src/modules/patients/search.js';
import { emptyTestDatabase } from '../../helpers/databases.js';

let database: Database;
let closeDatabase = async () => {};
beforeAll(async () => {
  const opened = await emptyTestDatabase('search_migration');
  ({ database, close: closeDatabase } = opened);
});
afterAll(() => closeDatabase());

it('adds the words of names of several words to the lookup keys and keeps every name findable', async () => {
  await migrate(database, { through: '0051' });
  const { db } = database;
  const organizationId = randomUUID();
  const clinicId = randomUUID();
  await sql`INSERT INTO organizations (id, name) VALUES (${organizationId}, 'Org')`.execute(db);
  await sql`INSERT INTO clinics (id, organization_id, name, mode) VALUES (${clinicId}, ${organizationId}, 'Clinica', 'live')`.execute(db);
  const people = [
    ['Maria Grazia', 'De Luca'],
    ['Mario', 'Rossi'],
    ['Anna', 'Di Stefano'],
  ];
  const ids: string[] = [];
  for (const [first, last] of people) {
    const id = randomUUID();
    ids.push(id);
    const f = normalizeName(first);
    const l = normalizeName(last);
    await sql`INSERT INTO patients (id, clinic_id, first_name, last_name, first_norm, last_norm, full_norm, phon_first, phon_last)
      VALUES (${id}, ${clinicId}, ${first}, ${last}, ${f}, ${l}, ${`${f} ${l}`}, dmetaphone(${f}), dmetaphone(${l}))`.execute(db);
    // The vocabulary as the service wrote it before 0060: each name and its deletion keys only.
    for (const term of [f, l]) {
      await sql`INSERT INTO patient_name_terms (clinic_id, term, phon) VALUES (${clinicId}, ${term}, dmetaphone(${term})) ON CONFLICT DO NOTHING`.execute(db);
      for (const key of deletionKeys(term)) {
        await sql`INSERT INTO patient_name_keys (clinic_id, key, term) VALUES (${clinicId}, ${key}, ${term}) ON CONFLICT DO NOTHING`.execute(db);
      }
    }
  }

  expect(await migrate(database)).toEqual(expect.arrayContaining(['0060_search_vocabulary.sql', '0061_search_covering_indexes.sql']));
  const { rows } = await sql<{
    key: string;
    term: string;
  }>`SELECT key, term FROM patient_name_keys WHERE clinic_id = ${clinicId} AND key IN ('grazia', 'maria', 'de', 'luca', 'stefano')`.execute(db);
  expect(rows.map((r) => `${r.key}>${r.term}`).sort()).toEqual([
    'de>de luca',
    'grazia>maria grazia',
    'luca>de luca',
    'maria>maria grazia',
    'stefano>di stefano',
  ]);

  const search = (q: string) => searchPatients(db, { ...backOffice(clinicId), region: 'IT' }, { q, limit: 5 });
  for (const [q, at] of [
    ['grazia de luca', 0],
    ['Maria Grazia Deluca', 0],
    ['De Luca', 0],
    ['Mario Rosi', 1],
    ['distefano', 2],
    ['Anna Di Stefnao', 2],
  ] as const) {
    expect((await search(q)).data[0]?.id, q).toBe(ids[at]);
  }
});
