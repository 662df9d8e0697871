/**
 * The HTTP side of the read replicas (src/db/replicas.ts): a key's write position is kept when
 * a request of that key that may write finishes, and /metrics shows each replica's state and lag.
 * Nothing is registered without replicas: a deployment without them pays nothing.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReadRouter, ReplicaState } from '../../db/replicas.js';

/** Methods that never write (a route that reads answers GET; HEAD and OPTIONS come with it). */
const READING = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every write of a key passes here: any /v1 or /mcp request of the key other than a read (an
 * agent's tool call is a POST too, and so is an idempotent replay, whose first answer may have
 * come from another process). onSend runs once the handler returned, so its transaction has
 * committed, and before the first byte of the answer leaves: the key's next request, wherever it
 * lands, finds the position kept. Reads counted as writes only send that key to the primary.
 */
export function registerWriteMarks(v1: FastifyInstance, reads: ReadRouter): void {
  if (!reads.replicated) return;
  v1.addHook('onSend', async (request) => {
    if (READING.has(request.method) || !request.auth) return;
    await reads.wrote(request.auth.keyId);
  });
}

const STATES: ReplicaState[] = ['starting', 'ready', 'lagging', 'unreachable', 'not_in_recovery'];

export function registerReplicaMetrics(registry: Registry, reads: ReadRouter): void {
  if (!reads.replicated) return;
  new Gauge({
    name: 'dcm_replica_state',
    help: 'Each read replica: 1 for its current state (ready: lag-tolerant reads may go to it)',
    labelNames: ['replica', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of reads.status()) for (const state of STATES) this.set({ replica: r.name, state }, r.state === state ? 1 : 0);
    },
  });
  new Gauge({
    name: 'dcm_replica_lag_seconds',
    help: 'How far each read replica was behind the primary at its last poll (+Inf: further than tracked; absent: unknown)',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of reads.status()) if (r.lagMs !== null) this.set({ replica: r.name }, r.lagMs / 1000);
    },
  });
  // Counters read from the router's own counts when scraped.
  const seen = new Map<string, number>();
  new Counter({
    name: 'dcm_replica_reads_total',
    help: "Lag-tolerant reads by where they ran: a replica, or the primary (no replica held the caller's writes, was near enough, or answered)",
    labelNames: ['target'],
    registers: [registry],
    collect() {
      const counts: [string, number][] = [...reads.status().map((r): [string, number] => [r.name, r.reads]), ['primary', reads.primaryReads()]];
      for (const [target, count] of counts) {
        this.inc({ target }, count - (seen.get(target) ?? 0));
        seen.set(target, count);
      }
    },
  });
}
