/**
 * Delivery queue metrics, read from the database when /metrics is scraped: the queue is
 * shared by every worker, so any API process reports the whole of it.
 */
import type { Db } from '../../db/transaction.js';
import { Gauge, type Registry } from 'prom-client';
import { countDeliveriesByStatus, dueQueue } from './jobs-store.js';

export function registerDeliveryMetrics(registry: Registry, db: Db): void {
  new Gauge({
    name: 'dcm_webhook_deliveries',
    help: 'Webhook deliveries by status (finished ones are kept 30 days)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const rows = await countDeliveriesByStatus(db);
      this.reset();
      for (const status of ['pending', 'delivering', 'succeeded', 'discarded']) {
        this.set({ status }, rows.find((r) => r.status === status)?.n ?? 0);
      }
    },
  });
  // One query for both gauges: a scrape collects every metric at once, so the two collects
  // share the query in flight.
  let inFlight: Promise<{ depth: number; age: number | null }> | null = null;
  const due = () => (inFlight ??= dueQueue(db).finally(() => (inFlight = null)));
  new Gauge({
    name: 'dcm_webhook_queue_depth',
    help: 'Pending deliveries that are due now (waiting for a worker)',
    registers: [registry],
    async collect() {
      this.set((await due()).depth);
    },
  });
  new Gauge({
    name: 'dcm_webhook_queue_oldest_age_seconds',
    help: 'How long the oldest due delivery has waited for a worker (0 when none)',
    registers: [registry],
    async collect() {
      this.set(Math.max(0, (await due()).age ?? 0));
    },
  });
}
