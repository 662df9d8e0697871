/**
 * One `400 invalid_request` names every wrong field: a body with one error
 * its schema finds and one only the operation's own rules find (`config.bodyIssues`, the
 * modules' checks.ts) is answered once, naming both paths. And a route with a body schema that
 * does not declare `bodyIssues` (its checks, or `false`) stops the start, like one without a gate.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerPlane, requirePlanes, RouteWithoutBodyChecksError } from '../../src/http/planes.js';
import type { Tenant } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

const paths = (res: { body: any }) => (res.body.error?.details?.issues ?? []).map((i: any) => i.path).sort();
const inFuture = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
const MISSING = '00000000-0000-4000-8000-000000000000';

interface Case {
  /** `v1` calls with the tenant's key; `admin` prefixes /admin/v1/clinics/{clinicId}. */
  plane: 'v1' | 'admin';
  method: string;
  path: (t: Tenant) => string;
  body: (t: Tenant) => unknown;
  /** Every path named, sorted: the schema's and the rules'. */
  issues: string[];
}

const CASES: Record<string, Case> = {
  'POST /v1/patients: a number field for a name, a phone that is no phone number': {
    plane: 'v1',
    method: 'POST',
    path: () => '/v1/patients',
    body: () => ({ firstName: 7, lastName: 'Rossi', phone: '123' }),
    issues: ['firstName', 'phone'],
  },
  'PATCH admin patients/{id}: a wrong gender, a phone that is no phone number': {
    plane: 'admin',
    method: 'PATCH',
    path: () => `/patients/${MISSING}`,
    body: () => ({ gender: 'x', phone: '123' }),
    issues: ['gender', 'phone'],
  },
  'POST admin patients/import: one patient without a last name, another with a wrong phone': {
    plane: 'admin',
    method: 'POST',
    path: () => '/patients/import',
    body: () => ({ patients: [{ firstName: 'Anna' }, { firstName: 'Bruno', lastName: 'Neri', phone: '123' }] }),
    issues: ['patients.0.lastName', 'patients.1.phone'],
  },
  'POST /v1/leads: an unknown field, a phone that is no phone number': {
    plane: 'v1',
    method: 'POST',
    path: () => '/v1/leads',
    body: () => ({ firstName: 'Anna', phone: '123', colour: 'red' }),
    issues: ['colour', 'phone'],
  },
  'POST /v1/calls: a wrong direction, a caller that is no phone number': {
    plane: 'v1',
    method: 'POST',
    path: () => '/v1/calls',
    body: () => ({ externalCallId: 'c-1', direction: 'sideways', from: '123', to: '+390212345678' }),
    issues: ['direction', 'from'],
  },
  'PATCH /v1/conversations/{id}/bot: an unknown field, a pause that already ended': {
    plane: 'v1',
    method: 'PATCH',
    path: () => `/v1/conversations/${MISSING}/bot`,
    body: () => ({ state: 'in_pausa', pausedUntil: inFuture(-1), colour: 'red' }),
    issues: ['colour', 'pausedUntil'],
  },
  'POST admin conversations: a facility that is no id, a phone that is no phone number': {
    plane: 'admin',
    method: 'POST',
    path: () => '/conversations',
    body: () => ({ phone: '123', facilityId: 'nope' }),
    issues: ['facilityId', 'phone'],
  },
  'POST admin conversations/{id}/messages: a wrong direction, a text message without text': {
    plane: 'admin',
    method: 'POST',
    path: () => `/conversations/${MISSING}/messages`,
    body: () => ({ direction: 'sideways' }),
    issues: ['body', 'direction'],
  },
  'POST admin facilities: an unknown field, a phone and hours out of order': {
    plane: 'admin',
    method: 'POST',
    path: () => '/facilities',
    body: () => ({ name: 'Sede Sud', colour: 'red', phone: '123', workingSchedule: { mon: [{ open: '10:00', close: '09:00' }] } }),
    issues: ['colour', 'phone', 'workingSchedule.mon.0.close'],
  },
  'PATCH admin facilities/{id}: an unknown field, hours that overlap': {
    plane: 'admin',
    method: 'PATCH',
    path: () => `/facilities/${MISSING}`,
    body: () => ({
      colour: 'red',
      workingSchedule: {
        tue: [
          { open: '09:00', close: '13:00' },
          { open: '12:00', close: '18:00' },
        ],
      },
    }),
    issues: ['colour', 'workingSchedule.tue.1.open'],
  },
  'POST admin calendars: a facility that is no id, hours out of order': {
    plane: 'admin',
    method: 'POST',
    path: () => '/calendars',
    body: (t) => ({
      name: 'Poltrona 1',
      facilityId: 'nope',
      slotMinutes: 30,
      doctorIds: [t.doctorId],
      workingHours: { mon: [{ open: '10:00', close: '09:00' }] },
    }),
    issues: ['facilityId', 'workingHours.mon.0.close'],
  },
  'PATCH admin calendars/{id}: an unknown field, hours out of order': {
    plane: 'admin',
    method: 'PATCH',
    path: () => `/calendars/${MISSING}`,
    body: () => ({ colour: 'red', workingHours: { fri: [{ open: '18:00', close: '08:00' }] } }),
    issues: ['colour', 'workingHours.fri.0.close'],
  },
  'POST admin appointments: a patient that is no id, an end before the start': {
    plane: 'admin',
    method: 'POST',
    path: () => '/appointments',
    body: () => ({ patientId: 'nope', start: inFuture(2), end: inFuture(1) }),
    issues: ['end', 'patientId'],
  },
  'PATCH admin appointments/{id}: an unknown field, an end before the start': {
    plane: 'admin',
    method: 'PATCH',
    path: () => `/appointments/${MISSING}`,
    body: () => ({ colour: 'red', start: inFuture(2), end: inFuture(1) }),
    issues: ['colour', 'end'],
  },
  'POST /v1/appointments: a patient that is no id, no calendar and no start without a hold': {
    plane: 'v1',
    method: 'POST',
    path: () => '/v1/appointments',
    body: () => ({ patientId: 'nope' }),
    issues: ['calendarId', 'patientId', 'start'],
  },
  'POST /v1/waitlist: a calendar that is no id, a patient and a lead, a window already over': {
    plane: 'v1',
    method: 'POST',
    path: () => '/v1/waitlist',
    body: () => ({ calendarId: 'nope', channel: 'phone', patientId: MISSING, leadId: MISSING, latest: inFuture(-1) }),
    issues: ['calendarId', 'latest', 'leadId', 'patientId'],
  },
  'PUT admin recall-rules: an interval of no months, nothing to recall': {
    plane: 'admin',
    method: 'PUT',
    path: () => '/recall-rules',
    body: () => ({ categories: [], types: [], intervalMonths: 0, maxAttemptsPerWeek: 3, quietStart: '20:00', quietEnd: '09:00' }),
    issues: ['categories', 'intervalMonths', 'types'],
  },
  'POST /v1/recalls/{patientId}/attempts: a wrong channel, a callback without its time': {
    plane: 'v1',
    method: 'POST',
    path: () => `/v1/recalls/${MISSING}/attempts`,
    body: () => ({ channel: 'pigeon', outcome: 'callback' }),
    issues: ['callbackAt', 'channel'],
  },
  'POST admin api-keys: no name, an expiry already past': {
    plane: 'admin',
    method: 'POST',
    path: () => '/api-keys',
    body: () => ({ scopes: ['patients:read'], expiresAt: inFuture(-1) }),
    issues: ['expiresAt', 'name'],
  },
  'POST /v1/documents: a wrong category, a type not allowed': {
    plane: 'v1',
    method: 'POST',
    path: () => '/v1/documents',
    body: () => ({
      patientId: MISSING,
      category: 'nope',
      title: 'Consenso',
      filename: 'c.pdf',
      contentType: 'application/x-evil',
      sizeBytes: 10,
      sha256: 'a'.repeat(64),
    }),
    issues: ['category', 'contentType'],
  },
  'POST /v1/webhook-endpoints: events that are no list, an address with credentials': {
    plane: 'v1',
    method: 'POST',
    path: () => '/v1/webhook-endpoints',
    body: () => ({ url: 'https://user:secret@example.com/hooks', events: 'patient.created' }),
    issues: ['events', 'url'],
  },
  'PATCH /v1/webhook-endpoints/{id}: an unknown field, an address with credentials': {
    plane: 'v1',
    method: 'PATCH',
    path: () => `/v1/webhook-endpoints/${MISSING}`,
    body: () => ({ url: 'https://user:secret@example.com/hooks', colour: 'red' }),
    issues: ['colour', 'url'],
  },
  'POST /v1/webhook-endpoints/{id}/replay: an end that is no instant, a start older than the events kept': {
    plane: 'v1',
    method: 'POST',
    path: () => `/v1/webhook-endpoints/${MISSING}/replay`,
    body: () => ({ from: inFuture(-40), to: 'tomorrow' }),
    issues: ['from', 'to'],
  },
};

describe('one 400 names the schema’s wrong fields and the rules’ together', () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(name, async () => {
      const url = c.plane === 'v1' ? c.path(t) : `/admin/v1/clinics/${t.clinicId}${c.path(t)}`;
      const res = c.plane === 'v1' ? await server.call(c.method, url, { token: t.token, body: c.body(t) }) : await server.admin(c.method, url, c.body(t));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(paths(res)).toEqual(c.issues);
    });
  }
});

const QUERY_CASES: Record<string, { url: () => string; issues: string[] }> = {
  'GET /v1/calendars/{id}/availability: a limit of none, a window that ends before it starts': {
    url: () => `/v1/calendars/${MISSING}/availability?limit=0&from=${encodeURIComponent(inFuture(2))}&to=${encodeURIComponent(inFuture(1))}`,
    issues: ['limit', 'to'],
  },
  'GET /v1/patients/lookup: an unknown parameter, a phone that is no phone number': {
    url: () => '/v1/patients/lookup?phone=123&colour=red',
    issues: ['colour', 'phone'],
  },
  'GET /v1/voice/context: a caller with letters, a called number that is no phone number': {
    url: () => '/v1/voice/context?from=abc&to=123',
    issues: ['from', 'to'],
  },
};

describe('one 400 names the query’s wrong parameters, the schema’s and the rules’ together', () => {
  for (const [name, c] of Object.entries(QUERY_CASES)) {
    it(name, async () => {
      const res = await server.call('GET', c.url(), { token: t.token });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.in).toBe('query');
      expect(paths(res)).toEqual(c.issues);
    });
  }
});

describe('a route with a body says what its schema leaves to the rules', () => {
  it('stops the start when a route with a body schema declares no config.bodyIssues', async () => {
    const app = Fastify();
    requirePlanes(app, { separateAdminListener: false });
    const body = { type: 'object', properties: { name: { type: 'string' } } };
    await expect(registerPlane(app, 'admin', null, (scope) => void scope.post('/unchecked', { schema: { body } }, async () => ({})))).rejects.toThrow(
      RouteWithoutBodyChecksError,
    );
    await app.close();
  });

  it('starts with bodyIssues: false (the schema says it all) or a check, and without a body schema', async () => {
    const app = Fastify();
    requirePlanes(app, { separateAdminListener: false });
    const body = { type: 'object', properties: { name: { type: 'string' } } };
    await registerPlane(app, 'admin', null, (scope) => {
      scope.post('/schema-only', { schema: { body }, config: { bodyIssues: false } }, async () => ({}));
      scope.post('/checked', { schema: { body }, config: { bodyIssues: () => [] } }, async () => ({}));
      scope.post('/no-body', async () => ({}));
    });
    await app.ready();
    expect(app.plannedRoutes.map((r) => r.url)).toEqual(['/schema-only', '/checked', '/no-body']);
    await app.close();
  });
});
