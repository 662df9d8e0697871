import { makeCalendar, at } from '../../helpers/seed.js';
import type { MatrixCase } from '../matrix.js';

let n = 0;

export const cases: MatrixCase[] = [
  {
    operationId: 'createSlotHold',
    method: 'POST',
    scopes: ['appointments:write'],
    resource: true,
    okStatus: 201,
    prepare: async (server, tenant) => {
      const cal = await makeCalendar(server, tenant);
      return { path: `/v1/calendars/${cal.id}/holds`, body: { start: at(3, 9), holderRef: `matrix-${++n}` } };
    },
  },
  {
    operationId: 'releaseSlotHold',
    method: 'DELETE',
    scopes: ['appointments:write'],
    resource: true,
    okStatus: 204,
    prepare: async (server, tenant) => {
      const cal = await makeCalendar(server, tenant);
      const hold = await server.call('POST', `/v1/calendars/${cal.id}/holds`, { token: tenant.token, body: { start: at(3, 9), holderRef: `matrix-${++n}` } });
      return { path: `/v1/holds/${hold.body.id}` };
    },
  },
  {
    operationId: 'getVoiceContext',
    method: 'GET',
    scopes: ['patients:read', 'appointments:read'],
    resource: false,
    prepare: async () => ({ path: '/v1/voice/context?from=%2B393331234567' }),
  },
  {
    operationId: 'createVoiceHandoff',
    method: 'POST',
    scopes: ['calls:write'],
    resource: false,
    okStatus: 201,
    prepare: async () => ({ path: '/v1/voice/handoffs', body: { callId: `matrix-call-${++n}`, reason: 'not_understood' } }),
  },
  { operationId: 'listAgentTools', method: 'GET', scopes: [], resource: false, prepare: async () => ({ path: '/v1/agent-tools?platform=openai' }) },
  {
    operationId: 'runVapiToolCalls',
    method: 'POST',
    scopes: [],
    resource: false,
    okStatus: 200,
    prepare: async () => ({ path: '/v1/agent-tools/vapi', body: { message: { type: 'tool-calls', toolCallList: [] } } }),
  },
  {
    operationId: 'runRetellFunction',
    method: 'POST',
    scopes: [],
    resource: false,
    okStatus: 200,
    prepare: async () => ({ path: '/v1/agent-tools/retell', body: { name: 'list_services', call: { call_id: `matrix-retell-${++n}` }, args: {} } }),
  },
  {
    operationId: 'runRetellFunctionArgsAtRoot',
    method: 'POST',
    scopes: [],
    resource: false,
    okStatus: 200,
    prepare: async () => ({ path: '/v1/agent-tools/retell/list_services', body: {} }),
  },
  {
    operationId: 'runAgentTool',
    method: 'POST',
    scopes: [],
    resource: false,
    okStatus: 200,
    prepare: async () => ({ path: '/v1/agent-tools/run/list_services', body: {}, headers: { 'x-call-id': `matrix-run-${++n}` } }),
  },
];
