import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { operations } from '../../../packages/client/src/schema.js';
import type { Tenant } from '../../helpers/factories.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let t: Tenant;
const ids: Record<string, string> = {};

const PEOPLE = [
  {
    key: 'rossi',
    firstName: 'Mario',
    lastName: 'Rossi',
    phone: '+39 333 111 2233',
    taxCode: 'RSSMRA80A01F205X',
    email: 'mario.rossi@example.com',
    dateOfBirth: '1980-01-01',
  },
  { key: 'rossa', firstName: 'Maria', lastName: 'Rossi', phone: '+39 333 111 4455' },
  { key: 'nicolo', firstName: 'Nicolò', lastName: 'Esposito', phone: '06 1234 5678' },
  { key: 'dangelo', firstName: 'Giuseppe', lastName: "D'Angelo" },
  { key: 'ferrari', firstName: 'Francesca', lastName: 'Ferrari' },
  { key: 'russo', firstName: 'Luca', lastName: 'Russo' },
  { key: 'bianchi', firstName: 'Giulia', lastName: 'Bianchi' },
  { key: 'colombo', firstName: 'Alessandro', lastName: 'Colombo' },
];

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
  for (const { key, ...p } of PEOPLE) {
    const res = await server.api(t.token).call('createPatient', { body: { ...p, facilityId: t.facilityIds[0] } });
    ids[key] = res.id;
  }
  const other = await server.api(t.token).call('createPatient', { body: { firstName: 'Mario', lastName: 'Rossi', facilityId: t.facilityIds[1] } });
  ids.rossi2 = other.id;
});
afterAll(() => server.close());

type SearchQuery = Omit<operations['searchPatients']['parameters']['query'], 'q'>;
/** A typed search (the project's client, generated OpenAPI types) that does not throw: its status, typed answer or error envelope. */
const search = async (q: string, query: SearchQuery = {}, token = t.token) => {
  const { data, error, response } = await server.api(token).raw.GET('/patients/search', { params: { query: { q, ...query } } });
  return { status: response.status, data, error, text: JSON.stringify(data ?? error) };
};
/** The answer of a search that must succeed. */
const hits = async (q: string, query: SearchQuery = {}, token = t.token) => {
  const res = await search(q, query, token);
  expect(res.status, `${JSON.stringify(q)}: ${res.text}`).toBe(200);
  return res.data!;
};
const issuePaths = (res: { error?: { error: { details: Record<string, unknown> | null } } }) =>
  (res.error!.error.details!.issues as { path: string }[]).map((i) => i.path);

describe('GET /v1/patients/search', () => {
  it.each([
    ['typo', 'Mario Rosi', 'rossi'],
    ['transposition', 'Mraio Rossi', 'rossi'],
    ['swapped', 'Rossi Mario', 'rossi'],
    ['swapped with typo', 'Rosi Mario', 'rossi'],
    ['missing accent', 'Nicolo Esposito', 'nicolo'],
    ['extra accent', 'Nìcolò Espòsito', 'nicolo'],
    ['two typos', 'Nicola Espostio', 'nicolo'],
    ['apostrophe missing', 'Giuseppe Dangelo', 'dangelo'],
    ['part of a name', 'Ferrari', 'ferrari'],
    ['doubled consonant', 'Francesca Ferari', 'ferrari'],
    ['sound-alike', 'Lucca Rosso', 'russo'],
  ])('finds by name with a %s (%s)', async (_kind, q, key) => {
    const res = await hits(q);
    // Two patients are named Mario Rossi: either one is the right answer to a name query.
    const person = PEOPLE.find((x) => x.key === key)!;
    expect(res.data[0]!.name, JSON.stringify(res)).toBe(`${person.firstName} ${person.lastName}`);
    if (key !== 'rossi') expect(res.data[0]!.id).toBe(ids[key]);
    expect(res.data[0]!.matchedBy).toBe('name');
  });

  it('finds by phone in any format, tax code in any case, email in any case, with score 1', async () => {
    for (const [q, by] of [
      ['3331112233', 'phone'],
      ['+39 333 111 22 33', 'phone'],
      ['0039-333-1112233', 'phone'],
      ['rssmra80a01f205x', 'taxCode'],
      ['MARIO.ROSSI@example.com', 'email'],
    ] as const) {
      const res = await hits(q);
      expect(res.data, q).toHaveLength(1);
      expect(res.data[0]).toMatchObject({ id: ids.rossi, matchedBy: by, score: 1 });
      expect(res.closeMatches).toBe(1);
    }
  });

  it('answers hits with exactly the documented fields and counts close matches', async () => {
    const res = await hits('mario rossi');
    expect(
      res.data
        .slice(0, 2)
        .map((h) => h.id)
        .sort(),
    ).toEqual([ids.rossi, ids.rossi2].sort());
    expect(res.closeMatches).toBe(2);
    const hit = res.data.find((h) => h.id === ids.rossi);
    expect(hit).toEqual({
      id: ids.rossi,
      name: 'Mario Rossi',
      birthYear: 1980,
      phoneLast4: '2233',
      archived: false,
      score: 1,
      matchedBy: 'name',
      confirmedBy: [],
      lastVisitAt: null,
    });
    const nulls = res.data.find((h) => h.id === ids.rossi2);
    expect(nulls).toMatchObject({ birthYear: null, phoneLast4: null });
    for (const h of res.data) expect(h.score >= 0 && h.score <= 1).toBe(true);
    expect(Object.keys(res).sort()).toEqual(['closeMatches', 'confirmed', 'confirmedBy', 'data']);
  });

  it('filters by facility, respects limited keys, includes archived patients and fills lastVisitAt', async () => {
    const only = await hits('mario rossi', { facilityId: t.facilityIds[1] });
    expect(only.data.map((h) => h.id)).toEqual([ids.rossi2]);
    const limited = await server.factories.key(t.clinicId, ['patients:read'], [t.facilityIds[1]]);
    const seen = await hits('mario rossi', {}, limited.token);
    expect(seen.data.map((h) => h.id)).toEqual([ids.rossi2]);
    expect((await search('mario rossi', { facilityId: t.facilityIds[0] }, limited.token)).status).toBe(400);

    await server.call('POST', `/admin/v1/clinics/${t.clinicId}/patients/${ids.bianchi}/archive`, { token: ADMIN_TOKEN });
    for (const [start, status] of [
      ['2026-01-10T09:00:00Z', 'completed'],
      ['2026-02-10T09:00:00Z', 'cancelled'],
      ['2099-01-01T09:00:00Z', 'scheduled'],
    ] as const) {
      await server.ctx.db
        .insertInto('appointments')
        .values({
          id: randomUUID(),
          clinic_id: t.clinicId,
          patient_id: ids.bianchi!,
          start_at: start,
          end_at: start.replace('09:00', '09:30'),
          status,
          origin: 'manual',
        })
        .execute();
    }
    const res = await hits('Giulia Bianchi');
    expect(res.data[0]).toMatchObject({ id: ids.bianchi, archived: true, lastVisitAt: '2026-01-10T09:00:00.000Z' });
    const other = await server.factories.tenant();
    expect(await hits('Giulia Bianchi', {}, other.token)).toEqual({ data: [], closeMatches: 0, confirmed: false, confirmedBy: [] });
  });

  it('finds names cut differently (a part of a compound name, a surname without its space)', async () => {
    const created = await server.api(t.token).call('createPatient', { body: { firstName: 'Maria Grazia', lastName: 'De Luca' } });
    for (const q of ['grazia de luca', 'Maria Grazia Deluca', 'de luca maria grazia']) {
      const res = await search(q);
      expect(res.data?.data[0]?.id, `${q}: ${res.text}`).toBe(created.id);
    }
  });

  it('answers a word that is a name with its own patients first, the names an edit away after them, and a name cut by a space as its equal', async () => {
    // Its own tenant: the counts below are of these patients only.
    const own = await server.factories.tenant();
    const create = async (firstName: string, lastName: string) => (await server.api(own.token).call('createPatient', { body: { firstName, lastName } })).id;
    const giorgio = [await create('Giorgio', 'Rossi'), await create('Giorgio', 'Verdi'), await create('Giorgio', 'Bianchi')];
    // An edit away, with a shorter surname (more trigrams in common with "giorgio" than Bianchi's).
    const giorgia = await create('Giorgia', 'Re');
    const cut = async (q: string, limit: number) => hits(q, { limit }, own.token);

    // The word's own patients fill a page of 2: nobody else is on it.
    const two = await cut('Giorgio', 2);
    expect(two.data.map((h) => h.id).every((id) => giorgio.includes(id))).toBe(true);
    // A page of 5: the three Giorgio, then Giorgia, who scores less than each of them.
    const five = await cut('Giorgio', 5);
    expect(
      five.data
        .slice(0, 3)
        .map((h) => h.id)
        .sort(),
    ).toEqual([...giorgio].sort());
    expect(five.data[3]?.id).toBe(giorgia);
    expect(five.data[3]!.score).toBeLessThan(five.data[2]!.score);
    // The page's order and closeMatches do not depend on how much of it is read.
    expect(two.data).toEqual(five.data.slice(0, 2));
    expect(two.closeMatches).toBe(five.closeMatches);
    // With a birth year no Giorgio has, the word's own patients fill nothing: the one an edit away, born that year, is found.
    const born = (await server.api(own.token).call('createPatient', { body: { firstName: 'Giorgia', lastName: 'Neri', dateOfBirth: '1975-03-02' } })).id;
    expect((await cut('Giorgio 1975', 5)).data.map((h) => h.id)).toEqual([born]);

    // "Gianluca" is a name here, and "Gian Luca" (a space away) scores above it, compared without spaces.
    const joined = await create('Gianluca', 'Bruno');
    const spaced = await create('Gian Luca', 'Neri');
    const one = await cut('Gianluca', 1);
    expect(one.data.map((h) => h.id)).toEqual([spaced]);
    expect((await cut('Gianluca', 5)).data.map((h) => h.id)).toEqual([spaced, joined]);
  });

  it('finds the shapes callers produce: a surname of two words alone, two errors in one word, a spelling heard by speech-to-text, a surname with a birth year', async () => {
    const created = await server.api(t.token).call('createPatient', {
      body: { firstName: 'Anna', lastName: 'Di Stefano', dateOfBirth: '1975-03-02' },
    });
    for (const q of ['Di Stefano', 'distefano', 'Anna Di Stefano']) {
      const res = await search(q);
      expect(res.data?.data[0]?.id, `${q}: ${res.text}`).toBe(created.id);
    }
    for (const [q, key] of [
      ['Francesca Fearri', 'ferrari'],
      ['Alesandor Colombo', 'colombo'],
      ['Giuseppe Dangleo', 'dangelo'],
    ] as const) {
      const res = await search(q);
      expect(res.data?.data[0]?.id, `${q}: ${res.text}`).toBe(ids[key]);
    }
    // c/ch/k and a missing final vowel, as speech-to-text writes what it heard.
    expect((await hits('Djulia Biankki')).data[0]?.id).toBe(ids.bianchi);
    // A birth year keeps the patients born that year: the year is a filter, not part of the score.
    const born = await hits('Rossi 1980');
    expect(born.data.map((h) => h.id)).toEqual([ids.rossi]);
    expect(born.data[0]).toMatchObject({ matchedBy: 'name', birthYear: 1980 });
    expect(await hits('Rossi 1990')).toEqual({ data: [], closeMatches: 0, confirmed: false, confirmedBy: [] });
  });

  it('answers odd queries at once: 2 characters, 100, punctuation only, mixed scripts; 400 for what cannot be a query', async () => {
    const words = Array.from({ length: 50 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(' ');
    const cases: Array<[string, 'empty' | 'any' | 'rossi']> = [
      ['ro', 'any'],
      ['a'.repeat(100), 'empty'],
      [words.slice(0, 100), 'empty'],
      [`Mario Rossi ${'x'.repeat(88)}`, 'any'],
      ['!!', 'empty'],
      ['?!.,;:-()[]{}\\', 'empty'],
      ["''", 'empty'],
      ['@@', 'empty'],
      ['😀😀', 'empty'],
      ['Марио Rossi', 'rossi'],
      ['Mario Россини', 'any'],
      ['李 Rossi', 'rossi'],
      ['ماريو روسي', 'empty'],
      ['1975', 'empty'],
    ];
    for (const [q, expected] of cases) {
      const started = performance.now();
      const res = await hits(q);
      expect(performance.now() - started, JSON.stringify(q)).toBeLessThan(2000);
      expect(Number.isInteger(res.closeMatches)).toBe(true);
      if (expected === 'empty') expect(res, JSON.stringify(q)).toEqual({ data: [], closeMatches: 0, confirmed: false, confirmedBy: [] });
      if (expected === 'rossi') expect(res.data[0]?.name, JSON.stringify(q)).toMatch(/Rossi$/);
    }
    // Too short, too long, blank, or a NUL character (which no text column can hold): 400 naming q.
    for (const q of ['a', 'a'.repeat(101), ' ', 'Mario\u0000Rossi', 'a@b\u0000.it']) {
      const res = await search(q);
      expect(res.status, JSON.stringify(q)).toBe(400);
      expect(issuePaths(res)).toEqual(['q']);
    }
  });

  it('validates q (2-100), limit (1-20) and facilityId', async () => {
    expect((await search('a')).status).toBe(400);
    expect((await search('ab')).status).toBe(200);
    expect((await search('a'.repeat(100))).status).toBe(200);
    expect((await search('a'.repeat(101))).status).toBe(400);
    expect((await search('rossi', { limit: 0 })).status).toBe(400);
    expect((await search('rossi', { limit: 21 })).status).toBe(400);
    const one = await hits('rossi', { limit: 1 });
    expect(one.data).toHaveLength(1);
    expect(one.closeMatches).toBeGreaterThanOrEqual(1);
    expect((await search('rossi', { limit: 20 })).status).toBe(200);
    // Outside the typed contract (no q, an unknown parameter): raw.
    const bad = await server.call('GET', '/v1/patients/search?limit=50&facilityId=x&other=1', { token: t.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.in).toBe('query');
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['facilityId', 'limit', 'other', 'q']);
  });
});
