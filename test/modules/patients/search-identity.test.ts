/**
 * A name alone is not a patient. The search confirms a patient only with a
 * second detail the caller says (birthDate, birthYear, phoneLast, taxCode), says so in
 * `confirmed` / `confirmedBy`, and finds callers who say a nickname of their first name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { operations } from '../../../packages/client/src/schema.js';
import { NICKNAMES, isNormalized } from '../../../src/modules/patients/nicknames.js';
import { isOwnName } from '../../../src/modules/patients/confirm.js';
import { SCOPES } from '../../../src/modules/auth/scopes.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let t: Tenant;
const ids: Record<string, string> = {};

const PEOPLE = [
  { key: 'rossi80', firstName: 'Mario', lastName: 'Rossi', phone: '+39 333 111 2233', taxCode: 'RSSMRA80A01F205X', dateOfBirth: '1980-01-01' },
  { key: 'rossi80b', firstName: 'Mario', lastName: 'Rossi', phone: '+39 333 999 8877', dateOfBirth: '1980-06-15' },
  { key: 'rossi75', firstName: 'Mario', lastName: 'Rossi', dateOfBirth: '1975-03-03' },
  { key: 'giulia', firstName: 'Giulia', lastName: 'Rossi', phone: '+39 333 123 4567', dateOfBirth: '1988-04-12' },
  { key: 'giuseppe', firstName: 'Giuseppe', lastName: 'Esposito' },
  { key: 'salvatore', firstName: 'Salvatore', lastName: 'Russo' },
  { key: 'francesco', firstName: 'Francesco', lastName: 'Bianchi' },
  { key: 'margherita', firstName: 'Margherita', lastName: 'Colombo' },
  { key: 'giuseppina', firstName: 'Giuseppina', lastName: 'Ricci' },
  { key: 'domenico', firstName: 'Domenico', lastName: 'Romano' },
  { key: 'rita', firstName: 'Rita', lastName: 'Gallo' },
  { key: 'margheritaGallo', firstName: 'Margherita', lastName: 'Gallo' },
  { key: 'giovanna', firstName: 'Giovanna', lastName: 'Quaranta' },
  { key: 'gianni', firstName: 'Gianni', lastName: 'Quaranta' },
  { key: 'cosimo', firstName: 'Cosimo', lastName: 'Natale' },
  { key: 'alessandroBruno', firstName: 'Alessandro', lastName: 'Bruno' },
  { key: 'alessiaBruno', firstName: 'Alessia', lastName: 'Bruno' },
  { key: 'alessiaBruno2', firstName: 'Alessia', lastName: 'Bruno' },
  { key: 'federicoSerra', firstName: 'Federico', lastName: 'Serra' },
  { key: 'federicaSerra', firstName: 'Federica', lastName: 'Serra' },
  { key: 'robertoSerra', firstName: 'Roberto', lastName: 'Serra' },
  { key: 'robertaSerra', firstName: 'Roberta', lastName: 'Serra' },
  { key: 'cosimoLeone', firstName: 'Cosimo', lastName: 'Leone' },
  { key: 'annaEsposito', firstName: 'Anna', lastName: 'Esposito' },
  ...[1, 2, 3].map((n) => ({ key: `domenicoLeone${n}`, firstName: 'Domenico', lastName: 'Leone', dateOfBirth: `19${60 + n}-01-01` })),
];

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
  for (const { key, ...p } of PEOPLE) {
    const res = await server.api(t.token).call('createPatient', { body: { ...p, facilityId: t.facilityIds[0] } });
    ids[key] = res.id;
  }
});
afterAll(() => server.close());

type SearchQuery = Omit<operations['searchPatients']['parameters']['query'], 'q'>;
const search = async (q: string, query: SearchQuery = {}) => {
  const { data, error, response } = await server.api(t.token).raw.GET('/patients/search', { params: { query: { q, ...query } } });
  return { status: response.status, data, error, text: JSON.stringify(data ?? error) };
};
const hits = async (q: string, query: SearchQuery = {}) => {
  const res = await search(q, query);
  expect(res.status, `${q}: ${res.text}`).toBe(200);
  return res.data!;
};

describe('confirming a patient with a second detail', () => {
  it('never confirms by a name alone, however close', async () => {
    for (const q of ['Mario Rossi', 'Giulia Rossi', 'Giulia Rosi', 'Mario Rossini']) {
      const res = await hits(q);
      expect(res.data.length, q).toBeGreaterThan(0);
      expect(res.confirmed, q).toBe(false);
      expect(res.confirmedBy).toEqual([]);
      for (const h of res.data) expect(h.confirmedBy).toEqual([]);
    }
  });

  it('confirms the one namesake whose date of birth the caller says, and puts them first', async () => {
    const res = await hits('Mario Rossi', { birthDate: '1980-06-15' });
    expect(res).toMatchObject({ confirmed: true, confirmedBy: ['birthDate'] });
    expect(res.data[0]!.id).toBe(ids.rossi80b);
    expect(res.data[0]!.confirmedBy).toEqual(['birthDate']);
    expect(res.data.slice(1).every((h) => h.confirmedBy.length === 0)).toBe(true);
    // A typo in the name, the same detail: still the same person.
    const typo = await hits('Mraio Rosi', { birthDate: '1980-06-15' });
    expect(typo).toMatchObject({ confirmed: true, confirmedBy: ['birthDate'] });
    expect(typo.data[0]!.id).toBe(ids.rossi80b);
  });

  it('does not confirm when several patients match the detail: they come first, the agent asks again', async () => {
    const res = await hits('Mario Rossi', { birthYear: 1980 });
    expect(res.confirmed).toBe(false);
    expect(res.confirmedBy).toEqual([]);
    expect(new Set(res.data.slice(0, 2).map((h) => h.id))).toEqual(new Set([ids.rossi80, ids.rossi80b]));
    expect(res.data.slice(0, 2).every((h) => h.confirmedBy.join() === 'birthYear')).toBe(true);
    // A second detail settles it.
    const both = await hits('Mario Rossi', { birthYear: 1980, phoneLast: '2233' });
    expect(both).toMatchObject({ confirmed: true, confirmedBy: ['birthYear', 'phoneLast'] });
    expect(both.data[0]!.id).toBe(ids.rossi80);
  });

  it('confirms by the phone’s last digits and by the tax code in any case, with spaces', async () => {
    const byPhone = await hits('Mario Rossi', { phoneLast: '8877' });
    expect(byPhone).toMatchObject({ confirmed: true, confirmedBy: ['phoneLast'] });
    expect(byPhone.data[0]!.id).toBe(ids.rossi80b);
    const byTaxCode = await hits('Mario Rossi', { taxCode: 'rssmra 80a01 f205x' });
    expect(byTaxCode).toMatchObject({ confirmed: true, confirmedBy: ['taxCode'] });
    expect(byTaxCode.data[0]!.id).toBe(ids.rossi80);
  });

  it('does not confirm a stranger whose name is close to a patient’s, nor details that disagree', async () => {
    // Not a patient: Mario Rossi born 1990; the hits stay, confirmed is false.
    const stranger = await hits('Mario Rossi', { birthDate: '1990-02-02' });
    expect(stranger.data.length).toBeGreaterThan(0);
    expect(stranger).toMatchObject({ confirmed: false, confirmedBy: [] });
    // Giulia Rossi's number with Mario's name: the detail names another person than the name.
    const giulia = await hits('Mario Rossi', { phoneLast: '4567', birthDate: '1980-01-01' });
    expect(giulia.confirmed).toBe(false);
    // Every detail must match the same patient.
    const mixed = await hits('Mario Rossi', { birthDate: '1980-01-01', phoneLast: '8877' });
    expect(mixed).toMatchObject({ confirmed: false, confirmedBy: [] });
  });

  it('confirms a phone query only with a second detail', async () => {
    const phoneOnly = await hits('333 111 2233');
    expect(phoneOnly.data[0]!.id).toBe(ids.rossi80);
    expect(phoneOnly.confirmed).toBe(false);
    const withYear = await hits('333 111 2233', { birthYear: 1980 });
    expect(withYear).toMatchObject({ confirmed: true, confirmedBy: ['birthYear'] });
  });

  it('refuses malformed details with 400 naming every wrong one', async () => {
    const res = await search('Mario Rossi', { birthDate: '1980-13-01', birthYear: 1800, phoneLast: '12', taxCode: 'abc!' } as SearchQuery);
    expect(res.status, res.text).toBe(400);
    const paths = (res.error!.error.details!.issues as { path: string }[]).map((i) => i.path);
    for (const p of ['birthDate', 'birthYear', 'phoneLast', 'taxCode']) expect(paths.join(' ')).toContain(p);
  });
});

describe('how strong a detail is', () => {
  it('takes a birth year alone only with the patient’s own registered name', async () => {
    // Giulia Rossi is the only patient born in 1988: a near name with her year is not her.
    for (const q of ['Giulia Rosi', 'Giulia', 'Rossi', 'Giulio Rossi']) {
      const near = await hits(q, { birthYear: 1988 });
      expect(near, q).toMatchObject({ confirmed: false, confirmedBy: [] });
      expect(near.data[0]!.id, q).toBe(ids.giulia);
      expect(near.data[0]!.confirmedBy, q).toEqual(['birthYear']);
    }
    for (const q of ['Giulia Rossi', 'rossi giulia', 'GIULIA  ROSSI']) {
      const own = await hits(q, { birthYear: 1988 });
      expect(own, q).toMatchObject({ confirmed: true, confirmedBy: ['birthYear'] });
      expect(own.data[0]!.id).toBe(ids.giulia);
    }
    // With another detail the near name is confirmed.
    const both = await hits('Giulia Rosi', { birthYear: 1988, phoneLast: '4567' });
    expect(both).toMatchObject({ confirmed: true, confirmedBy: ['birthYear', 'phoneLast'] });
  });

  it('reads the name as the patient’s own in any case, accents, spacing and order; never a nickname or a near name', () => {
    expect(isOwnName(['rossi', 'giulia'], 'giulia', 'rossi')).toBe(true);
    expect(isOwnName(['gianluca', 'de', 'luca'], 'gian luca', 'de luca')).toBe(true);
    expect(isOwnName(['deluca', 'gianluca'], 'gian luca', 'de luca')).toBe(true);
    expect(isOwnName(['giulia', 'rosi'], 'giulia', 'rossi')).toBe(false);
    expect(isOwnName(['pino', 'esposito'], 'giuseppe', 'esposito')).toBe(false);
    expect(isOwnName(['rossi'], 'giulia', 'rossi')).toBe(false);
  });

  it('takes a query that is a tax code as the taxCode detail, and a phone only with another detail', async () => {
    const byTaxCode = await hits('rssmra80a01f205x');
    expect(byTaxCode).toMatchObject({ confirmed: true, confirmedBy: ['taxCode'] });
    expect(byTaxCode.data[0]!.id).toBe(ids.rossi80);
    expect((await hits('rssmra80a01f205x', { taxCode: 'RSSMRA80A01F205Y' })).confirmed).toBe(false);
    expect((await hits('rssmra80a01f205x', { birthDate: '1980-01-02' })).confirmed).toBe(false);
    expect((await hits('+39 333 123 4567')).confirmed).toBe(false);
    expect(await hits('+39 333 123 4567', { birthYear: 1988 })).toMatchObject({ confirmed: true, confirmedBy: ['birthYear'] });
  });
});

describe('an agent key', () => {
  let voice: string;
  beforeAll(async () => {
    const res = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/api-keys`, { name: 'voice', scopes: [...SCOPES], agent: 'voice_agent' });
    expect(res.status, res.text).toBe(201);
    voice = res.body.token;
  });
  const agentSearch = async (query: Record<string, string>) => {
    const res = await server.call('GET', `/v1/patients/search?${new URLSearchParams(query)}`, { token: voice });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  it('gets no hit until confirmed: how many were found and what to ask instead', async () => {
    const res = await agentSearch({ q: 'Mario Rossi' });
    expect(res).toMatchObject({ data: [], confirmed: false, confirmedBy: [], askFor: ['birthDate', 'phoneLast', 'taxCode'] });
    expect(res.candidates).toBeGreaterThanOrEqual(3);
    // Two namesakes born in 1980: still nobody, and the details that would settle it.
    const year = await agentSearch({ q: 'Mario Rossi', birthYear: '1980' });
    expect(year).toMatchObject({ data: [], confirmed: false, askFor: ['birthDate', 'phoneLast', 'taxCode'] });
    const wrong = await agentSearch({ q: 'Mario Rossi', birthDate: '1990-02-02' });
    expect(wrong).toMatchObject({ data: [], confirmed: false, askFor: ['phoneLast', 'taxCode'] });
    const nobody = await agentSearch({ q: 'Zebedeo Quisquilia' });
    expect(nobody).toMatchObject({ data: [], candidates: 0, askFor: [] });
  });

  it('gets only the confirmed patient, even beyond the first page', async () => {
    const res = await agentSearch({ q: 'Mario Rossi', birthDate: '1975-03-03', limit: '1' });
    expect(res).toMatchObject({ confirmed: true, confirmedBy: ['birthDate'], askFor: [] });
    expect(res.data.map((h: { id: string }) => h.id)).toEqual([ids.rossi75]);
  });
});

describe('nicknames', () => {
  it.each([
    ['Pino Esposito', 'giuseppe'],
    ['Peppe Esposito', 'giuseppe'],
    ['Totò Russo', 'salvatore'],
    ['Turi Russo', 'salvatore'],
    ['Checco Bianchi', 'francesco'],
    ['Rita Colombo', 'margherita'],
    ['Pina Ricci', 'giuseppina'],
    ['Mimmo Romano', 'domenico'],
    ['Romano Mimmo', 'domenico'],
    ['Mimmo Romani', 'domenico'],
  ])('finds the registered name first for "%s"', async (q, key) => {
    const res = await hits(q);
    expect(res.data[0]?.id, res.data.map((h) => `${h.name} ${h.score} ${h.matchedBy}`).join('; ')).toBe(ids[key]);
    expect(res.data[0]!.matchedBy).toBe('nickname');
    expect(res.data[0]!.score).toBeLessThanOrEqual(0.95);
  });

  it('puts the nickname’s registered name before a name one letter from the nickname', async () => {
    // "Gianna" is said for Giovanna; Gianni is a letter away from what was said.
    const res = await hits('Gianna Quaranta');
    expect(res.data.map((h) => h.id).slice(0, 2)).toEqual([ids.giovanna, ids.gianni]);
    expect(res.data[0]!.matchedBy).toBe('nickname');
    // Short forms added with the benchmark's nickname shape: Mimmo for Cosimo, Salvo, Gio.
    expect((await hits('Mimmo Natale')).data[0]!.id).toBe(ids.cosimo);
    expect((await hits('Salvo Russo')).data[0]!.id).toBe(ids.salvatore);
  });

  it('scores a nickname below the registered name: Rita Gallo before Margherita Gallo', async () => {
    const res = await hits('Rita Gallo');
    expect(res.data.map((h) => h.id).slice(0, 2)).toEqual([ids.rita, ids.margheritaGallo]);
    expect(res.data[0]).toMatchObject({ matchedBy: 'name', score: 1 });
    expect(res.data[1]!.matchedBy).toBe('nickname');
    expect(res.closeMatches).toBe(1);
  });

  it('ranks the forms of a nickname by how likely a caller saying it bears each: namesakes × how often each form is said so', async () => {
    // Two Alessia Bruno, one Alessandro Bruno: "Ale" is likelier said by one of the two (and an
    // Alessia has no other short form in the table, an Alessandro also Sandro).
    const ale = await hits('Ale Bruno');
    expect(ale.data.slice(0, 3).map((h) => [h.name, h.score])).toEqual([
      ['Alessia Bruno', 0.95],
      ['Alessia Bruno', 0.95],
      ['Alessandro Bruno', 0.945],
    ]);
    expect(ale.closeMatches).toBe(2);
    // Three Domenico Leone, one Cosimo Leone: a Domenico is called Mimmo, Mimì, Memmo or Nico,
    // a Cosimo only Mimmo, so 3 × 1/4 against 1 × 1: the Cosimo first.
    const mimmo = await hits('Mimmo Leone');
    expect(mimmo.data[0]).toMatchObject({ id: ids.cosimoLeone, score: 0.95, matchedBy: 'nickname' });
    expect(mimmo.data.slice(1, 4).map((h) => [h.name, h.score])).toEqual(Array.from({ length: 3 }, () => ['Domenico Leone', 0.945]));
    // One of each: a Federica is called only Fede, a Federico also Chicco.
    const fede = await hits('Fede Serra');
    expect(fede.data.slice(0, 2).map((h) => h.id)).toEqual([ids.federicaSerra, ids.federicoSerra]);
    expect(fede.data.slice(0, 2).every((h) => h.matchedBy === 'nickname')).toBe(true);
    // As likely (one each, Robi their only short form): the table's order, Roberto first.
    const robi = await hits('Robi Serra');
    expect(robi.data.slice(0, 2).map((h) => [h.id, h.score])).toEqual([
      [ids.robertoSerra, 0.95],
      [ids.robertaSerra, 0.945],
    ]);
  });

  it('does not offer a patient for a nickname’s registered form alone: "Pino Bassani" is not Giuseppe Esposito', async () => {
    // A nickname's reading ("giuseppe bassani") stops at the names as cut; only the words said
    // go on to patients with any one of them as first or last name.
    const res = await hits('Pino Bassani');
    expect(res.data.map((h) => `${h.name} ${h.matchedBy}`)).not.toContain('Giuseppe Esposito nickname');
    expect(res.data.every((h) => h.matchedBy !== 'nickname')).toBe(true);
  });

  it('answers a nickname found as a registered name with the page that name gets: no looser matches of one word', async () => {
    // Anna Esposito shares only the surname: "Giuseppe Esposito" does not list her, nor does
    // "Pino Esposito" once the nickname's form found Giuseppe.
    const registered = await hits('Giuseppe Esposito');
    const nickname = await hits('Pino Esposito');
    expect(registered.data.map((h) => h.id)).toEqual([ids.giuseppe]);
    expect(nickname.data.map((h) => h.id)).toEqual([ids.giuseppe]);
    // Nobody found by the name as cut: the words said alone still find the Espositos.
    const stranger = await hits('Signora Esposito');
    expect(stranger.data.map((h) => h.id).sort()).toEqual([ids.giuseppe, ids.annaEsposito].sort());
  });

  it('answers a word every JavaScript object has (constructor, __proto__, toString) as a name like any other', async () => {
    for (const q of ['constructor', '__proto__', 'toString', 'Mario hasOwnProperty', 'valueOf Rossi']) {
      const res = await search(q);
      expect(res.status, `${q}: ${res.text}`).toBe(200);
    }
  });

  it('keeps the table normalized: keys and forms as queries are compared, no form a key', () => {
    for (const [nickname, forms] of Object.entries(NICKNAMES)) {
      expect(isNormalized(nickname), nickname).toBe(true);
      expect(forms.length, nickname).toBeGreaterThan(0);
      for (const f of forms) {
        expect(isNormalized(f), f).toBe(true);
        expect(NICKNAMES[f], `${f} is both a form and a nickname`).toBeUndefined();
      }
    }
  });
});
