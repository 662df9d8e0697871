import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refused } from '../../helpers/refused.js';
import type { operations } from '../../../packages/client/src/schema.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let t: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  t = await server.factories.tenant();
});
afterAll(() => server.close());

let n = 0;
const phone = () => `+39 349 ${String(4000000 + ++n).padStart(7, '0')}`;
type NewCall = operations['createCall']['requestBody']['content']['application/json'];
const withDefaults = (body: Partial<NewCall> & Pick<NewCall, 'from'>): NewCall => ({
  externalCallId: randomUUID(),
  direction: 'inbound',
  to: '+39 02 5555 1234',
  ...body,
});
/** A typed creation (the project's client, generated OpenAPI types): throws ApiClientError on a refusal. */
const post = (body: Partial<NewCall> & Pick<NewCall, 'from'>, token = t.token) =>
  server.api(token).callWithResponse('createCall', { body: withDefaults(body) });
/** The same, not throwing (`{ data, error, response }`): for answers read whole or whose statuses differ. */
const attempt = (body: Partial<NewCall> & Pick<NewCall, 'from'>, token = t.token) => server.api(token).raw.POST('/calls', { body: withDefaults(body) });
const getCall = (id: string, token = t.token) => server.api(token).callWithResponse('getCall', { params: { path: { id } } });
const events = (clinicId: string, type: string) =>
  server.ctx.db.selectFrom('events').selectAll().where('clinic_id', '=', clinicId).where('type', '=', type).execute();
const CALL_KEYS = [
  'id',
  'externalCallId',
  'direction',
  'from',
  'to',
  'startedAt',
  'durationSeconds',
  'outcome',
  'summary',
  'recordingUrl',
  'patientId',
  'leadId',
  'facilityId',
  'createdAt',
];

describe('POST /v1/calls', () => {
  it('tells a key limited to facilities nothing of a call it cannot see that has the same externalCallId', async () => {
    const tenant = await server.factories.tenant();
    const body = { externalCallId: `ext-${randomUUID()}`, from: phone(), facilityId: tenant.facilityIds[0], transcript: 'dolore al molare' };
    const first = await post(body, tenant.token);
    expect(first.response.status).toBe(201);
    const limited = await server.factories.key(tenant.clinicId, ['calls:read', 'calls:write', 'clinical:write', 'clinical:read'], [tenant.facilityIds[1]]);
    const blind = await attempt({ ...body, facilityId: tenant.facilityIds[1] }, limited.token);
    expect(blind.response.status).toBe(404);
    expect(blind.error?.error.code).toBe('not_found');
    expect(JSON.stringify(blind.error)).not.toContain(first.data.id);
    expect(JSON.stringify(blind.error)).not.toContain('molare');
  });

  it('is idempotent on externalCallId: 201 then 200 with the same row, also concurrently', async () => {
    const tenant = await server.factories.tenant();
    const body = {
      externalCallId: `ext-${randomUUID()}`,
      from: phone(),
      startedAt: '2026-03-01T09:30:00+01:00',
      durationSeconds: 86400,
      outcome: 'booked' as const,
      caller: { firstName: 'Ugo', lastName: 'Neri' },
    };
    const first = await post(body, tenant.token);
    expect(first.response.status).toBe(201);
    expect(Object.keys(first.data).sort()).toEqual([...CALL_KEYS].sort());
    expect(first.data).toMatchObject({ startedAt: '2026-03-01T08:30:00.000Z', to: '+390255551234' });
    const again = await post({ ...body, summary: 'different' }, tenant.token);
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(first.data);

    const concurrent = { externalCallId: `ext-${randomUUID()}`, from: phone(), caller: { firstName: 'Ada' } };
    const results = await Promise.all(Array.from({ length: 20 }, () => post(concurrent, tenant.token)));
    expect(results.filter((r) => r.response.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.response.status === 200)).toHaveLength(19);
    expect(new Set(results.map((r) => r.data.id)).size).toBe(1);
    expect(await events(tenant.clinicId, 'call.logged')).toHaveLength(2);
    expect(await events(tenant.clinicId, 'lead.created')).toHaveLength(2);
    // Same external id in another clinic is another call.
    expect((await post({ externalCallId: body.externalCallId, from: 'anonymous' })).response.status).toBe(201);
  });

  it('makes a lead of an unknown number (source phone, caller name, call activity), once', async () => {
    // Typed calls (test/helpers/server.ts `api`): bodies and answers are checked by the generated OpenAPI types.
    const tenant = await server.factories.tenant();
    const api = server.api(tenant.token);
    const number = phone();
    const call = (body: Partial<NewCall> & Pick<NewCall, 'from'>) =>
      api.callWithResponse('createCall', { body: { externalCallId: randomUUID(), direction: 'inbound', to: '+39 02 5555 1234', ...body } });
    const first = await call({ from: number, caller: { firstName: 'Gino', lastName: 'Bruno' }, summary: 'chiede orari', startedAt: '2026-04-01T10:00:00Z' });
    expect(first.response.status).toBe(201);
    expect(first.data.leadId).toBeTruthy();
    expect(first.data.patientId).toBeNull();
    const lead = await api.call('getLead', { params: { path: { id: first.data.leadId! } } });
    expect(lead).toMatchObject({
      source: 'phone',
      firstName: 'Gino',
      lastName: 'Bruno',
      phone: number.replace(/ /g, ''),
      lastContactedAt: '2026-04-01T10:00:00.000Z',
    });
    expect(lead.activities).toEqual([{ id: expect.any(String), kind: 'call', body: 'chiede orari', at: '2026-04-01T10:00:00.000Z' }]);
    const second = await call({ from: number.replace('+39 ', ''), outcome: 'callback' });
    expect(second.data.leadId).toBe(first.data.leadId);
    expect(await events(tenant.clinicId, 'lead.created')).toHaveLength(1);
    const lead2 = await api.call('getLead', { params: { path: { id: first.data.leadId! } } });
    expect(lead2.activities.map((a) => a.body)).toEqual(['chiede orari', 'Chiamata in entrata (callback)']);
  });

  it('matches a patient by the counterpart number (to for outbound) and creates nothing for anonymous', async () => {
    const tenant = await server.factories.tenant();
    const number = phone();
    const patient = await server.api(tenant.token).call('createPatient', { body: { firstName: 'Pia', lastName: 'Conti', phone: number } });
    const out = await post({ direction: 'outbound', from: '+39 02 5555 1234', to: number.replace(/\s/g, '-') }, tenant.token);
    expect(out.data).toMatchObject({ patientId: patient.id, leadId: null });
    const anon = await post({ from: 'ANONYMOUS' }, tenant.token);
    expect(anon.response.status).toBe(201);
    expect(anon.data).toMatchObject({ from: 'anonymous', patientId: null, leadId: null });
    expect(await events(tenant.clinicId, 'lead.created')).toHaveLength(0);
    const logged = await events(tenant.clinicId, 'call.logged');
    expect(logged).toHaveLength(2);
  });

  it('needs clinical:write for a transcript and shows it only with clinical:read, logging the read', async () => {
    const writer = await server.factories.key(t.clinicId, ['calls:write', 'calls:read']);
    const denied = await refused(post({ from: 'anonymous', transcript: 'dolore al dente' }, writer.token));
    expect(denied.status).toBe(403);
    expect(denied.details?.requiredScopes).toEqual(['clinical:write']);
    const created = await post({ from: 'anonymous', transcript: 'dolore al dente' });
    expect(created.response.status).toBe(201);
    expect(created.data).not.toHaveProperty('transcript');
    const plain = await getCall(created.data.id, writer.token);
    expect(plain.response.status).toBe(200);
    expect(plain.data).not.toHaveProperty('transcript');
    const before = await server.ctx.db.selectFrom('access_log_entries').selectAll().where('clinic_id', '=', t.clinicId).execute();
    expect(before.filter((r) => r.resource_ids.includes(created.data.id))).toHaveLength(0);
    const full = await getCall(created.data.id);
    expect(full.data.transcript).toBe('dolore al dente');
    const log = await server.ctx.db.selectFrom('access_log_entries').selectAll().where('clinic_id', '=', t.clinicId).execute();
    const entry = log.find((r) => r.resource_ids.includes(created.data.id))!;
    expect(entry).toMatchObject({ resource_type: 'call', fields: ['transcript'], api_key_id: t.keyId, request_id: full.response.headers.get('x-request-id') });
  });

  it('refuses bad input naming every field and writes nothing', async () => {
    const tenant = await server.factories.tenant();
    const other = await server.factories.tenant();
    const foreignPatient = await server.api(other.token).call('createPatient', { body: { firstName: 'X', lastName: 'Y' } });
    // Outside the typed contract (a direction, an outcome and a caller field not in the contract): raw.
    const bad = await server.call('POST', '/v1/calls', {
      token: tenant.token,
      body: {
        externalCallId: 'x'.repeat(256),
        direction: 'sideways',
        from: 'ab',
        to: '1'.repeat(33),
        startedAt: '2026-13-01T00:00Z',
        durationSeconds: 86401,
        outcome: 'maybe',
        summary: 's'.repeat(4001),
        recordingUrl: 'u'.repeat(2049),
        transcript: 't'.repeat(200001),
        patientId: 'p',
        leadId: 'l',
        facilityId: 'f',
        caller: { nick: 'x' },
      },
    });
    expect(bad.status).toBe(400);
    const paths = new Set(bad.body.error.details.issues.map((i: { path: string }) => i.path.split('.')[0]));
    for (const f of [
      'externalCallId',
      'direction',
      'from',
      'to',
      'startedAt',
      'durationSeconds',
      'outcome',
      'summary',
      'recordingUrl',
      'transcript',
      'patientId',
      'leadId',
      'facilityId',
      'caller',
    ])
      expect(paths.has(f), f).toBe(true);
    const edge = await refused(
      post(
        {
          externalCallId: 'e'.repeat(255),
          from: '1'.repeat(3).padStart(3, '0'),
          durationSeconds: 0,
          summary: 's'.repeat(4000),
          transcript: 't'.repeat(200000),
        },
        tenant.token,
      ),
    );
    expect(edge.status).toBe(400); // "001" is not a phone number
    expect(edge.details?.issues).toEqual([{ path: 'from', message: expect.any(String) }]);
    const ok = await post(
      {
        externalCallId: 'e'.repeat(255),
        from: 'anonymous',
        durationSeconds: 0,
        summary: 's'.repeat(4000),
        transcript: 't'.repeat(200000),
        recordingUrl: `https://rec.example.com/${'a'.repeat(2048 - 24)}`,
      },
      tenant.token,
    );
    expect(ok.response.status).toBe(201);
    expect(ok.data.recordingUrl!.length).toBe(2048);
    const semantic = await refused(post({ from: 'anonymous', patientId: foreignPatient.id, leadId: foreignPatient.id, to: '12345' }, tenant.token));
    expect(semantic.status).toBe(400);
    expect((semantic.details?.issues as { path: string }[]).map((i) => i.path).sort()).toEqual(['leadId', 'patientId', 'to']);
    expect(await events(tenant.clinicId, 'call.logged')).toHaveLength(1);
  });
});
