/**
 * The agent tools' call ledger (src/modules/tool-calls): a call's last write is the newer of its
 * newest tool key whose work committed and its recorded write whose operation takes no key, per
 * clinic, for as long as idempotency keys bind; a call's keys are found through their index.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { newestToolKeyQuery } from '../../../src/db/idempotency.js';
import { purgeToolCallWrites, toolCallLedger, toolWriteKey } from '../../../src/modules/tool-calls/index.js';
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

/** A key's row as the idempotency store leaves it: `state` and how old. */
async function keyRow(clinicId: string, key: string, state: 'in_progress' | 'committed' | 'completed', age = '0 seconds') {
  const apiKey = await server.ctx.db.selectFrom('api_keys').select('id').where('clinic_id', '=', clinicId).executeTakeFirstOrThrow();
  await server.ctx.db
    .insertInto('idempotency_keys')
    .values({
      clinic_id: clinicId,
      idempotency_key: key,
      api_key_id: apiKey.id,
      operation: 'POST /v1/appointments',
      body_hash: 'h',
      state,
      locked_until: sql<Date>`now()`,
      status_code: state === 'completed' ? 201 : null,
      response_body: state === 'completed' ? '{}' : null,
      created_at: sql<Date>`now() - ${age}::interval`,
    })
    .execute();
}

describe('tool call ledger', () => {
  it('is the newest key of the call whose work committed, of this clinic only', async () => {
    const ledger = toolCallLedger(server.ctx.db, a.clinicId);
    expect(await ledger.lastWrite('call-1')).toBeNull();
    const book = toolWriteKey('call-1', 'book_appointment', 'a'.repeat(64), null);
    const cancel = toolWriteKey('call-1', 'cancel_appointment', 'b'.repeat(64), book);
    const running = toolWriteKey('call-1', 'book_appointment', 'c'.repeat(64), cancel);
    await keyRow(a.clinicId, book, 'completed', '2 seconds');
    expect(await ledger.lastWrite('call-1')).toEqual({ tool: 'book_appointment', argsHash: 'a'.repeat(64), idempotencyKey: book });
    await keyRow(a.clinicId, cancel, 'committed', '1 second');
    // Still running: not a write yet.
    await keyRow(a.clinicId, running, 'in_progress');
    expect(await ledger.lastWrite('call-1')).toEqual({ tool: 'cancel_appointment', argsHash: 'b'.repeat(64), idempotencyKey: cancel });
    expect(await ledger.lastWrite('call-2')).toBeNull();
    expect(await toolCallLedger(server.ctx.db, b.clinicId).lastWrite('call-1')).toBeNull();
    // A new attempt after another write chains on it: book → cancel → book is a fresh key.
    expect(toolWriteKey('call-1', 'book_appointment', 'a'.repeat(64), cancel)).not.toBe(book);
  });

  it('takes the newer of a keyed write and a recorded one: hold → release → hold', async () => {
    const ledger = toolCallLedger(server.ctx.db, a.clinicId);
    const hold = toolWriteKey('call-3', 'hold_slot', 'f'.repeat(64), null);
    await keyRow(a.clinicId, hold, 'completed', '3 seconds');
    const release = toolWriteKey('call-3', 'release_hold', '1'.repeat(64), hold);
    await ledger.recordWrite('call-3', { tool: 'release_hold', argsHash: '1'.repeat(64), idempotencyKey: release });
    expect(await ledger.lastWrite('call-3')).toEqual({ tool: 'release_hold', argsHash: '1'.repeat(64), idempotencyKey: release });
    const again = toolWriteKey('call-3', 'hold_slot', 'f'.repeat(64), release);
    expect(again).not.toBe(hold);
    await keyRow(a.clinicId, again, 'committed');
    expect(await ledger.lastWrite('call-3')).toEqual({ tool: 'hold_slot', argsHash: 'f'.repeat(64), idempotencyKey: again });
    expect(await toolCallLedger(server.ctx.db, b.clinicId).lastWrite('call-3')).toBeNull();
  });

  it('forgets a write older than the keys’ 24 hours, and the purge deletes its row', async () => {
    const ledger = toolCallLedger(server.ctx.db, a.clinicId);
    await keyRow(a.clinicId, toolWriteKey('old-call', 'hold_slot', 'd'.repeat(64), null), 'completed', '25 hours');
    expect(await ledger.lastWrite('old-call')).toBeNull();
    await ledger.recordWrite('old-call-2', { tool: 'release_hold', argsHash: 'h', idempotencyKey: toolWriteKey('old-call-2', 'release_hold', 'h', null) });
    await server.ctx.db
      .updateTable('tool_call_writes')
      .set({ written_at: sql<Date>`now() - interval '25 hours'` })
      .where('call_id', '=', 'old-call-2')
      .execute();
    expect(await ledger.lastWrite('old-call-2')).toBeNull();
    expect(await purgeToolCallWrites(server.ctx.db)).toBeGreaterThanOrEqual(1);
    const left = await server.ctx.db.selectFrom('tool_call_writes').select('call_id').where('call_id', '=', 'old-call-2').execute();
    expect(left).toEqual([]);
  });

  it('keeps a key of any call id under the store’s 255 characters, with no colon but its separators', () => {
    const key = toolWriteKey(`vapi:${'x'.repeat(500)}:%_`, 'reschedule_appointment', 'e'.repeat(64), 'tool:prev');
    expect(key.length).toBeLessThanOrEqual(255);
    expect(key.split(':')).toHaveLength(5);
  });

  it('finds a call’s keys through the index, not by reading the clinic’s keys', async () => {
    const plan = await server.ctx.db.connection().execute(async (conn) => {
      await sql`SET enable_seqscan = off`.execute(conn);
      try {
        // The ledger's own query, as the store runs it.
        const query = newestToolKeyQuery(server.ctx.db, a.clinicId, 'abc').compile();
        const { rows } = await conn.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]));
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await sql`RESET enable_seqscan`.execute(conn);
      }
    });
    expect(plan).toContain('idempotency_keys_tool_call_idx');
  });
});
