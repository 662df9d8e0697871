/**
 * The agent tools' call ledger on each request (`request.toolCalls`, of the caller's clinic): a
 * tool call reads its call's last write there, and records it when its
 * operation takes no Idempotency-Key (src/agents/executor.ts runTool),
 * whichever route runs it (/mcp, Vapi's runner). A getter: nothing is built for other requests.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../../db/transaction.js';
import { toolCallLedger } from '../../modules/tool-calls/index.js';

export function registerToolCallLedger(app: FastifyInstance, db: Db): void {
  app.decorateRequest('toolCalls', {
    getter(this: FastifyRequest) {
      return toolCallLedger(db, this.actor.clinicId);
    },
  });
}
