/**
 * A name never becomes a patient for an agent: a caller who is not a patient, saying a name one
 * letter from a real one ("Giulia Rosi" for the demo's Giulia Rossi), with no detail, a wrong
 * date of birth or a birth year only, gets no id, no name, no birth year and no phone digits of
 * anybody, on MCP, on the Vapi runner and on REST with the voice key (what the REST packs call);
 * so nothing of Giulia Rossi is booked, moved, cancelled, listed or read out. A key that is not
 * an agent's keeps its hits with ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoClinic } from '../../src/demo/clinic.js';
import { SCOPES } from '../../src/modules/auth/scopes.js';
import { startDemoServer, type TestServer } from '../helpers/server.js';
import { callTool } from './mcp-client.js';

let server: TestServer;
let demo: DemoClinic;
let giulia: string;
let chatToken: string;

beforeAll(async () => {
  ({ server, demo } = await startDemoServer());
  // The non-agent key finds her with a confirming detail (her date of birth in the demo).
  const res = await server.call('GET', '/v1/patients/search?q=Giulia%20Rossi&birthDate=1988-04-12', { token: demo.liveToken });
  expect(res.body.confirmed, res.text).toBe(true);
  giulia = res.body.data[0].id;
  const key = await server.admin('POST', `/admin/v1/clinics/${demo.liveClinicId}/api-keys`, { name: 'chat bot', scopes: [...SCOPES], agent: 'chat_bot' });
  expect(key.status, key.text).toBe(201);
  chatToken = key.body.token;
}, 60_000);
afterAll(() => server.close());

type Args = Record<string, string | number>;

/** One search as each agent transport sends it: the answer and its whole text. */
const transports: Record<string, (args: Args) => Promise<{ body: any; text: string }>> = {
  rest: async (args) => {
    const query = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)]));
    const res = await server.call('GET', `/v1/patients/search?${query}`, { token: demo.voiceToken });
    expect(res.status, res.text).toBe(200);
    return { body: res.body, text: res.text };
  },
  mcp: async (args) => {
    const res = await callTool(server.url, demo.voiceToken, 'search_patients', args);
    expect(res.isError, res.content[0]?.text).toBeFalsy();
    return { body: res.structuredContent, text: JSON.stringify(res) };
  },
  mcpChatBot: async (args) => {
    const res = await callTool(server.url, chatToken, 'search_patients', args);
    expect(res.isError, res.content[0]?.text).toBeFalsy();
    return { body: res.structuredContent, text: JSON.stringify(res) };
  },
  vapi: async (args) => {
    const res = await server.call('POST', '/v1/agent-tools/vapi', {
      token: demo.voiceToken,
      body: {
        message: {
          type: 'tool-calls',
          call: { id: 'vapi-identity' },
          toolCallList: [{ id: 't1', type: 'function', function: { name: 'search_patients', arguments: args } }],
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    return { body: JSON.parse(res.body.results[0].result), text: res.text };
  },
};

/** What the agent must never learn of Giulia Rossi from a search that did not confirm her. */
function revealsNothing(text: string) {
  expect(text).not.toContain(giulia);
  expect(text).not.toContain('1988');
  expect(text).not.toContain('4567');
  expect(text).not.toMatch(/Rossi/);
}

/** What the agent could have done to her: her appointments as they are, and the clinic's counts. */
async function giuliaState() {
  const db = server.ctx.db;
  const appointments = await db
    .selectFrom('appointments')
    .select(['id', 'status', 'start_at', 'updated_at'])
    .where('clinic_id', '=', demo.liveClinicId)
    .where('patient_id', '=', giulia)
    .orderBy('id')
    .execute();
  const counts: Record<string, number> = {};
  for (const table of ['appointments', 'waitlist_entries', 'tasks', 'calls', 'access_log'] as const) {
    const row = await db
      .selectFrom(table as 'appointments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('clinic_id', '=', demo.liveClinicId)
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return { appointments: JSON.stringify(appointments), counts };
}

const STRANGER: Array<{ why: string; args: Args; askFor: string[] }> = [
  { why: 'a near name, no detail', args: { q: 'Giulia Rosi' }, askFor: ['birthDate', 'phoneLast', 'taxCode'] },
  { why: 'a near name, a wrong date of birth', args: { q: 'Giulia Rosi', birthDate: '1990-02-02' }, askFor: ['phoneLast', 'taxCode'] },
  { why: 'a near name and her birth year only', args: { q: 'Giulia Rosi', birthYear: 1988 }, askFor: ['birthDate', 'phoneLast', 'taxCode'] },
  { why: 'her name written otherwise, a wrong phone', args: { q: 'rossi giulia', phoneLast: '9999' }, askFor: ['birthDate', 'taxCode'] },
];

describe('a stranger who says a name close to a patient’s', () => {
  for (const [via, search] of Object.entries(transports)) {
    it(`gets no patient, only how many were found and what to ask (${via})`, async () => {
      for (const { why, args, askFor } of STRANGER) {
        const { body, text } = await search(args);
        expect(body, why).toMatchObject({ data: [], confirmed: false, confirmedBy: [], askFor });
        expect(body.candidates, why).toBeGreaterThan(0);
        revealsNothing(text);
      }
    });
  }

  it('goes through a whole call on MCP and nothing of Giulia Rossi is read, booked, moved or cancelled', async () => {
    const before = await giuliaState();
    const key = demo.voiceToken;
    const seen: string[] = [];
    const call = async (tool: string, args: Record<string, unknown>) => {
      const res = await callTool(server.url, key, tool, args);
      seen.push(JSON.stringify(res));
      return res;
    };
    const context = await call('get_caller_context', { from: '+39 347 000 1122', to: '02 1234 5678' });
    expect(context.structuredContent.caller.patients).toEqual([]);
    for (const { args } of STRANGER) {
      const res = await call('search_patients', args);
      expect(res.structuredContent.data).toEqual([]);
    }
    // Nothing matches after the details: a new contact.
    const lead = await call('create_lead', { firstName: 'Giulia', lastName: 'Rosi', phone: '+39 347 000 1122', source: 'phone', callId: 'stranger-1' });
    expect(lead.isError, lead.content[0]?.text).toBeFalsy();
    // With no id, the patient tools have nothing to act on: they refuse rather than guess.
    const appointments = await call('list_patient_appointments', { sort: 'start' });
    expect(appointments.isError).toBe(true);
    for (const text of seen) expect(text).not.toContain(giulia);
    expect(await giuliaState()).toEqual(before);
  });

  it('on the Vapi runner and REST, the same searches leave her untouched', async () => {
    const before = await giuliaState();
    for (const { args } of STRANGER) {
      revealsNothing((await transports.vapi!(args)).text);
      revealsNothing((await transports.rest!(args)).text);
    }
    expect(await giuliaState()).toEqual(before);
  });

  it('says nothing is found for a name nobody has: no detail to ask, a new contact', async () => {
    const { body } = await transports.mcp!({ q: 'Zebedeo Quisquilia' });
    expect(body).toMatchObject({ data: [], confirmed: false, candidates: 0, askFor: [] });
  });
});

describe('the patient herself', () => {
  const CONFIRMED: Array<{ why: string; args: Args; by: string[] }> = [
    { why: 'her own name and her birth year', args: { q: 'Giulia Rossi', birthYear: 1988 }, by: ['birthYear'] },
    { why: 'her name in another order, her birth year', args: { q: 'rossi giulia', birthYear: 1988 }, by: ['birthYear'] },
    {
      why: 'a near name, her birth year and her phone’s last digits',
      args: { q: 'Giulia Rosi', birthYear: 1988, phoneLast: '4567' },
      by: ['birthYear', 'phoneLast'],
    },
    { why: 'a near name and her date of birth', args: { q: 'Giulia Rosi', birthDate: '1988-04-12' }, by: ['birthDate'] },
  ];
  for (const [via, search] of Object.entries(transports)) {
    it(`is given to the agent once confirmed, and only she (${via})`, async () => {
      for (const { why, args, by } of CONFIRMED) {
        const { body } = await search(args);
        expect(body, why).toMatchObject({ confirmed: true, confirmedBy: by, askFor: [] });
        expect(
          body.data.map((h: { id: string }) => h.id),
          why,
        ).toEqual([giulia]);
      }
    });
  }
});

describe('a key that is not an agent’s', () => {
  it('keeps today’s hits with ids, and no agent fields', async () => {
    const res = await server.call('GET', '/v1/patients/search?q=Giulia%20Rosi', { token: demo.liveToken });
    expect(res.status).toBe(200);
    expect(res.body.confirmed).toBe(false);
    expect(res.body.data[0].id).toBe(giulia);
    expect(res.body.data[0]).toMatchObject({ name: 'Giulia Rossi', birthYear: 1988, phoneLast4: '4567' });
    expect(res.body).not.toHaveProperty('candidates');
    expect(res.body).not.toHaveProperty('askFor');
  });
});
