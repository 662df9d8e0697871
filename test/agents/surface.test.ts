/**
 * What a model reads from the agent tools, reviewed as a surface: every tool checked against its
 * operation's route when the app is built.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { AGENT_TOOLS } from '../../src/agents/registry.js';
import { checkToolOperations } from '../../src/http/routes/agent-perform.js';
import { startDemoServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  ({ server } = await startDemoServer());
}, 60_000);
afterAll(() => server.close());

describe('the tools against their routes', () => {
  it('finds every tool’s operation, operationId and schemas in its route', () => {
    expect(() => checkToolOperations(server.app.plannedRoutes)).not.toThrow();
  });

  it('refuses to start with a tool whose operation, operationId or schemas drifted from its route', () => {
    const find = AGENT_TOOLS.find((t) => t.name === 'find_slots')!;
    const book = AGENT_TOOLS.find((t) => t.name === 'book_appointment')!;
    const drifted = [
      { ...find, operation: { ...find.operation, url: '/v1/calendars/:id/free' } },
      { ...find, operation: { ...find.operation, operationId: 'findSlots' } },
      { ...book, body: Type.Object({ patientId: Type.String() }, { additionalProperties: false }) },
    ];
    expect(() => checkToolOperations(server.app.plannedRoutes, drifted)).toThrow(
      /find_slots: no v1 route GET \/v1\/calendars\/:id\/free\nfind_slots: operationId findSlots, the route's is getCalendarAvailability\nbook_appointment: its body schema is not its route's/,
    );
  });
});
