/** The agent tools' call ledger (src/modules/tool-calls): the last write per call, per clinic, kept as long as idempotency keys. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { purgeToolCallWrites, toolCallLedger } from '../../../src/modules/tool-calls/service.js';
import type { Tenant } from '../../helpers/factories.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  server = await startTestServer();
  a = await server.factories.tenant();
  b = await server.factories.tenant();
});
afterAll(() => server.close());

describe('tool call ledger', () => {
  it('remembers the last write of each call of a clinic, forgets the one before, and sees no other clinic’s', async () => {
    const ledger = toolCallLedger(server.ctx.db, a.clinicId);
    expect(await ledger.lastWrite('call-1')).toBeNull();
    await ledger.recordWrite('call-1', { tool: 'book_appointment', argsHash: 'h1', idempotencyKey: 'k1' });
    await ledger.recordWrite('call-1', { tool: 'cancel_appointment', argsHash: 'h2', idempotencyKey: 'k2' });
    expect(await ledger.lastWrite('call-1')).toEqual({ tool: 'cancel_appointment', argsHash: 'h2', idempotencyKey: 'k2' });
    expect(await toolCallLedger(server.ctx.db, b.clinicId).lastWrite('call-1')).toBeNull();
  });

  it('keeps rows as long as idempotency keys (24 hours): an older one is ignored, then purged', async () => {
    const ledger = toolCallLedger(server.ctx.db, a.clinicId);
    await ledger.recordWrite('old-call', { tool: 'hold_slot', argsHash: 'h', idempotencyKey: 'k' });
    await ledger.recordWrite('new-call', { tool: 'hold_slot', argsHash: 'h', idempotencyKey: 'k' });
    await server.ctx.db
      .updateTable('tool_call_writes')
      .set({ written_at: sql<Date>`now() - interval '25 hours'` })
      .where('call_id', '=', 'old-call')
      .execute();
    expect(await ledger.lastWrite('old-call')).toBeNull();
    expect(await purgeToolCallWrites(server.ctx.db)).toBeGreaterThanOrEqual(1);
    const left = await server.ctx.db.selectFrom('tool_call_writes').select('call_id').where('clinic_id', '=', a.clinicId).execute();
    expect(left.map((r) => r.call_id).sort()).toEqual(['call-1', 'new-call']);
  });
});
