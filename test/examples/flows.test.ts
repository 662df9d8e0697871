/**
 * The voice-agent and chat-bot examples, and the webhook receiver fed by the real service,
 * against the real server. Each runs as soon as the operations it needs are in the live
 * OpenAPI documents (they arrive with other branches); until then it is skipped.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAT_BOT_OPERATIONS, handOffToClinic } from '../../examples/chat-bot.js';
import { handleInboundCall, VOICE_AGENT_OPERATIONS } from '../../examples/voice-agent.js';
import { createWebhookReceiver } from '../../examples/webhook-receiver.js';
import { createClient, type WebhookEnvelope } from '../../packages/client/src/index.js';
import { startTestServer } from '../helpers/server.js';

// Top-level: the skip conditions need the live documents before the tests are declared.
const server = await startTestServer({ config: { webhookAllowInsecure: true } });
afterAll(() => server.close());
const v1Doc = (await server.call('GET', '/v1/openapi.json')).body;
const adminDoc = (await server.admin('GET', '/admin/v1/openapi.json')).body;
const operationIds = new Set<string>();
for (const doc of [v1Doc, adminDoc]) {
  for (const item of Object.values<Record<string, { operationId?: string }>>(doc.paths ?? {})) {
    for (const op of Object.values(item)) if (op?.operationId) operationIds.add(op.operationId);
  }
}
const adminHas = (method: string, path: string) => !!adminDoc.paths?.[path]?.[method];
const has = (...ids: readonly string[]) => ids.every((id) => operationIds.has(id));

function api(token: string) {
  return createClient({ baseUrl: `${server.url}/v1`, apiKey: token, retry: { baseDelayMs: 5, maxDelayMs: 50 } });
}

const everyDay = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ open: '07:00', close: '21:00' }]]));

describe('voice agent example', () => {
  it.skipIf(!has(...VOICE_AGENT_OPERATIONS, 'createPatient', 'listAppointments') || !adminHas('post', '/clinics/{clinicId}/calendars'))(
    'looks the caller up, books a free slot, registers the call; an unknown number becomes a lead',
    async () => {
      const t = await server.factories.tenant();
      const client = api(t.token);
      await client.ensureOperations(['createPatient']);
      const patient = await client.call('createPatient', {
        body: { firstName: 'Mario', lastName: 'Rossi', phone: '+39 333 123 4567', dateOfBirth: '1975-05-05', facilityId: t.facilityIds[0] },
      });
      const calendar = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/calendars`, {
        facilityId: t.facilityIds[0],
        name: 'Igiene',
        slotMinutes: 30,
        workingHours: everyDay,
        doctorIds: [t.doctorId],
      });
      expect(calendar.status, calendar.text).toBe(201);

      const call = {
        externalCallId: `call-${Date.now()}`,
        from: '333 1234567',
        to: '02 1234 5678',
        startedAt: new Date().toISOString(),
        durationSeconds: 95,
        calendarId: calendar.body.id as string,
      };
      // The number alone is not the patient: without a second detail nobody is confirmed, nothing is booked.
      const unconfirmed = await handleInboundCall(client, { ...call, externalCallId: `call-${Date.now()}-0` });
      expect(unconfirmed).toMatchObject({ patientId: null, appointment: null });
      // A wrong date of birth confirms nobody either.
      const wrong = await handleInboundCall(client, { ...call, externalCallId: `call-${Date.now()}-w`, birthDate: '1975-05-06' });
      expect(wrong).toMatchObject({ patientId: null, appointment: null });
      // The agent asks for the date of birth, the caller says it: confirmed, booked.
      const questions: string[] = [];
      const result = await handleInboundCall(client, {
        ...call,
        ask: async (question) => {
          questions.push(question);
          return '1975-05-05';
        },
      });
      expect(questions).toHaveLength(1);
      expect(result.patientId).toBe(patient.id);
      expect(result.appointment?.status).toBe('scheduled');
      expect(result.call).toMatchObject({ outcome: 'booked', patientId: patient.id });
      // The booking is in the agenda: follow the list page by page (one item per page).
      const listed: string[] = [];
      for await (const a of client.paginateOperation('listAppointments', { params: { query: { limit: 1, patientId: patient.id } } })) listed.push(a.id);
      expect(listed).toEqual([result.appointment!.id]);
      // Registering the same call again returns the same row.
      const again = await client.call('createCall', { body: { externalCallId: call.externalCallId, direction: 'inbound', from: call.from, to: call.to } });
      expect(again.id).toBe(result.call.id);

      const unknown = await handleInboundCall(client, {
        ...call,
        externalCallId: `call-${Date.now()}-2`,
        from: '347 999 0000',
        caller: { firstName: 'Anna', lastName: 'Neri' },
        birthDate: '1990-01-01',
      });
      expect(unknown.patientId).toBeNull();
      expect(unknown.appointment).toBeNull();
      expect(unknown.call.leadId).toBeTruthy();
    },
  );
});

describe('chat bot example', () => {
  it.skipIf(
    !has(...CHAT_BOT_OPERATIONS, 'createPatient') ||
      !adminHas('post', '/clinics/{clinicId}/conversations') ||
      !adminHas('post', '/clinics/{clinicId}/conversations/{id}/messages'),
  )('finds its conversation, confirms the patient by a second detail despite a typo, reads every message, pauses the bot', async () => {
    const t = await server.factories.tenant();
    const client = api(t.token);
    await client.ensureOperations(['createPatient']);
    const patient = await client.call('createPatient', {
      body: { firstName: 'Giulia', lastName: 'Esposito', phone: '+39 347 555 1234', dateOfBirth: '1991-07-21' },
    });
    const other = await client.call('createPatient', {
      body: { firstName: 'Giulia', lastName: 'Rossi', phone: '+39 347 555 9999', dateOfBirth: '1985-02-02' },
    });
    const conversation = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/conversations`, { patientId: patient.id });
    expect(conversation.status, conversation.text).toBe(201);
    for (const text of ['Buongiorno', 'Vorrei spostare la visita', 'Sono Giulia Esposito']) {
      const m = await server.admin('POST', `/admin/v1/clinics/${t.clinicId}/conversations/${conversation.body.id}/messages`, { direction: 'in', body: text });
      expect(m.status, m.text).toBe(201);
    }
    // A name alone: nobody is attached, the bot asks for the date of birth; the conversation is found without its id.
    const unconfirmed = await handOffToClinic(client, { query: 'Giulia Espositto', pauseMinutes: 30 });
    expect(unconfirmed.conversation.id).toBe(conversation.body.id);
    expect(unconfirmed.patient).toBeNull();
    expect(unconfirmed.ask).toMatch(/data di nascita/);
    // Another person's name and date: never attached to this conversation.
    const stranger = await handOffToClinic(client, { query: 'Giulia Rossi', birthDate: '1985-02-02', pauseMinutes: 30 });
    expect(stranger.patient).toBeNull();
    expect(other.id).toBeTruthy();

    const result = await handOffToClinic(client, { query: 'Giulia Espositto', birthDate: '1991-07-21', pauseMinutes: 30 });
    expect(result.patient).toMatchObject({ id: patient.id, confirmedBy: ['birthDate'] });
    expect(result.ask).toBeNull();
    expect(result.messages.map((m) => m.body)).toEqual(['Buongiorno', 'Vorrei spostare la visita', 'Sono Giulia Esposito']);
    expect(result.conversation.botState).toBe('in_pausa');
    expect(Date.parse(result.conversation.botPausedUntil!)).toBeGreaterThan(Date.now() + 25 * 60_000);
  });
});

describe('webhook receiver example fed by the service', () => {
  it.skipIf(!has('createWebhookEndpoint', 'testWebhookEndpoint'))('verifies the signature of a real test delivery', async () => {
    const t = await server.factories.tenant();
    const received: WebhookEnvelope[] = [];
    let secret = '';
    // The secret is known only after the destination is created.
    const withSecret = createWebhookReceiver({ secrets: () => [secret], onEvent: (event) => void received.push(event) });
    await new Promise<void>((resolve) => withSecret.listen(0, '127.0.0.1', resolve));
    try {
      const client = api(t.token);
      await client.ensureOperations(['createWebhookEndpoint', 'testWebhookEndpoint']);
      const endpoint = await client.call('createWebhookEndpoint', {
        body: { url: `http://127.0.0.1:${(withSecret.address() as AddressInfo).port}/hooks`, events: ['patient.created'], description: 'example receiver' },
      });
      secret = endpoint.secret;
      expect(secret).toMatch(/^whsec_/);
      const outcome = await client.call('testWebhookEndpoint', { params: { path: { id: endpoint.id } } });
      expect(JSON.stringify(outcome)).not.toContain('test_mode');
      expect(received.map((e) => e.type)).toEqual(['webhook.test']);
    } finally {
      await new Promise<void>((resolve) => withSecret.close(() => resolve()));
    }
  });
});
