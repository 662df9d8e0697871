/**
 * Example: the same phone call as examples/voice-agent.ts, through the MCP endpoint, as a voice
 * platform (Vapi, Retell, ElevenLabs, LiveKit, Pipecat) runs it: the official MCP client over
 * streamable HTTP, a new connection for every tool call, the call's id in `X-Call-Id` so that
 * a retried write answers its first result.
 *
 *   get_caller_context → list_services (matched on keywords) → find_slots (spread=day) →
 *   hold_slot → book_appointment (with the hold) → log_call
 *
 * Run against the demo clinic of `npm start`:
 *   DCM_API_KEY=<the voice agent key printed by npm start> npx tsx examples/mcp-voice-agent.ts
 * Optional: DCM_MCP_URL (default http://127.0.0.1:3000/mcp), CALLER_PHONE, REQUEST.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = new URL(process.env.DCM_MCP_URL ?? 'http://127.0.0.1:3000/mcp');
const key = process.env.DCM_API_KEY;
const callerPhone = process.env.CALLER_PHONE ?? '+39 333 123 4567';
const clinicPhone = '02 1234 5678';
const request = process.env.REQUEST ?? 'pulizia';
const callId = `call-${randomUUID()}`;

/** One tool call on a connection of its own, as Vapi makes them; an error result stops the call. */
async function tool<T = any>(name: string, args: Record<string, unknown>): Promise<T> {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}`, 'x-call-id': callId } } });
  const client = new Client({ name: 'mcp-voice-agent-example', version: '1.0.0' });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as { text: string }[])[0]?.text ?? '';
    if (result.isError) throw new Error(`${name}: ${text}`);
    return result.structuredContent as T;
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  if (!key) throw new Error('Set DCM_API_KEY to the voice agent key printed by npm start.');
  const context = await tool('get_caller_context', { from: callerPhone, to: clinicPhone });
  const patient = context.caller.patients[0];
  if (!patient) throw new Error('The caller is not a patient of the demo clinic: set CALLER_PHONE.');
  const services = await tool('list_services', {});
  const calendar = services.data.find((c: { keywords: string[]; active: boolean }) => c.active && c.keywords.includes(request));
  if (!calendar) throw new Error(`No service matches "${request}".`);
  const slots = await tool('find_slots', { calendarId: calendar.id, spread: 'day', limit: 3 });
  if (slots.data.length === 0) throw new Error(`No free slot (${slots.emptyReason}).`);
  const chosen = slots.data[0];
  const hold = await tool('hold_slot', { calendarId: calendar.id, start: chosen.start, holderRef: callId, ttlSeconds: 120 });
  const appointment = await tool('book_appointment', { holdId: hold.id, patientId: patient.id });
  const call = await tool('log_call', {
    externalCallId: callId,
    direction: 'inbound',
    from: callerPhone,
    to: clinicPhone,
    outcome: 'booked',
    patientId: patient.id,
    summary: `Prenotata ${calendar.name}`,
  });
  console.log(
    JSON.stringify({
      caller: patient.firstName,
      calendar: { id: calendar.id, name: calendar.name },
      offered: slots.data.map((s: { label: string }) => s.label),
      appointment,
      call,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
