/** The delivery worker: in rounds, records finished attempts and claims due deliveries, then sends them (see README.md beside the module). */
import type { AppContext } from '../../../context.js';
import { keepListening } from '../../../db/listener.js';
import { EVENTS_CHANNEL } from '../../../events/record.js';
import type { Running } from '../../../jobs/scheduler.js';
import { createSender, type Sender } from '../sender.js';
import { deliveryHeaders, signingSecrets } from '../signing.js';
import { deliveryRound } from './claim-store.js';
import { finishUnsent, type ClaimedDelivery, type FinishedAttempt } from './outcome-store.js';

interface WorkerOptions {
  /** Deliveries this process sends at once (all clinics). */
  concurrency?: number;
  /** How long a claim is owned before another worker may retake it. */
  leaseMs?: number;
  /** Longest sleep without a NOTIFY. */
  pollMs?: number;
  /**
   * Shortest time between the starts of two rounds (record outcomes + claim), default 10 ms:
   * under load the events and outcomes of those milliseconds share one transaction. (A shorter
   * round costs the worker's PostgreSQL more CPU; a longer one adds latency for less saving:
   * docs/performance.md.)
   */
  roundMs?: number;
  /**
   * From this many deliveries claimed per second (default 100) the worker promises to poll,
   * so that events stop sending a NOTIFY each (README beside this file, invariant 5).
   */
  pollFromPerSecond?: number;
  onError?: (error: unknown) => void;
}

/** Most outcomes recorded by one round's statement (more wait for the next round, which follows at once). */
const RECORD_BATCH_MAX = 500;
/** Each promise to poll lasts this long; it is renewed while the rate holds. Events skip their NOTIFY while at least 1 s of it is left. */
const POLL_PROMISE_MS = 3_000;

export async function startDeliveryWorker(ctx: AppContext, options: WorkerOptions = {}): Promise<Running> {
  const concurrency = options.concurrency ?? 64;
  const leaseMs = options.leaseMs ?? 15_000;
  const pollMs = options.pollMs ?? Math.min(1000, Math.max(50, 60_000 * ctx.config.webhookRetryScale));
  const roundMs = options.roundMs ?? 10;
  const pollFromPerSecond = options.pollFromPerSecond ?? 100;
  const onError = options.onError ?? (() => {});
  const sender: Sender = createSender({ allowInsecure: ctx.config.webhookAllowInsecure }, { connections: concurrency });
  /** Sends under way (claimed, no outcome yet). */
  const inFlight = new Set<Promise<void>>();
  /** Outcomes waiting for the next round. Until it commits their deliveries stay leased, so a crash here costs a second send, never a lost one. */
  let finished: FinishedAttempt[] = [];
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let pendingWake = false;
  let lastReclaim = 0;
  let lastRound = 0;
  /** Until then (this process's clock) the worker looks every `roundMs` whatever happens: it promised to in `webhook_polling`. */
  let pollingUntil = 0;
  let claimedInWindow = 0;
  let windowStart = Date.now();
  let busy = false;

  const kick = () => {
    pendingWake = true;
    wakeUp?.();
  };
  /** Resolves after `ms`, or earlier on a kick. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (pendingWake || stopped) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });

  const send = async (d: ClaimedDelivery) => {
    if (d.deleted) return finishUnsent(ctx, d, 'endpoint_deleted');
    if (!d.enabled) return finishUnsent(ctx, d, 'endpoint_disabled');
    if (!d.key_active) return finishUnsent(ctx, d, 'key_inactive');
    const startedAt = new Date();
    const headers = deliveryHeaders(d.id, d.body, signingSecrets(d, startedAt), startedAt, d.signature_scheme);
    const result = await sender.send(d.url, d.body, headers);
    finished.push({ delivery: d, startedAt, result });
  };

  /** Records what finished, then claims as many deliveries as there is room for and starts sending them. */
  const round = async (claim: boolean) => {
    const batch = finished.slice(0, RECORD_BATCH_MAX);
    finished = finished.slice(batch.length);
    const room = claim ? concurrency - inFlight.size : 0;
    if (batch.length === 0 && room <= 0) return;
    const now = Date.now();
    // Expired leases are looked for at most every 500 ms: they only matter after a crash.
    const reclaimExpired = claim && now - lastReclaim >= 500;
    if (reclaimExpired) lastReclaim = now;
    // Busy (the last full second claimed at least `pollFromPerSecond`): renew the promise to
    // poll before less than 2 s of it is left, so events keep skipping their NOTIFY.
    if (now - windowStart >= 1000) {
      busy = (claimedInWindow * 1000) / (now - windowStart) >= pollFromPerSecond;
      claimedInWindow = 0;
      windowStart = now;
    }
    const promise = claim && busy && pollingUntil - now < POLL_PROMISE_MS - 1000;
    let claimed: ClaimedDelivery[];
    try {
      claimed = await deliveryRound(ctx, batch, { limit: room, leaseMs, reclaimExpired, promisePollingMs: promise ? POLL_PROMISE_MS : 0 });
    } catch (error) {
      // The batch's outcomes are lost with the transaction: their deliveries stay leased and
      // are sent again once the lease runs out (at least once, same idempotency key).
      if (!stopped) onError(error);
      return;
    }
    // The database's promise runs from its transaction's start, before this moment: counting
    // from now keeps this process polling at least as long as it promised.
    if (promise) pollingUntil = Date.now() + POLL_PROMISE_MS;
    claimedInWindow += claimed.length;
    for (const d of claimed) {
      const p: Promise<void> = send(d)
        .catch((error) => onError(error))
        .finally(() => {
          inFlight.delete(p);
          kick(); // an outcome to record, and a slot free again
        });
      inFlight.add(p);
    }
  };

  // NOTIFY wakes the loop at once. If the listening connection breaks, it listens again and
  // then looks once: notifications sent meanwhile were missed. Until then the loop still looks
  // every `pollMs`.
  const listener = await keepListening(ctx.database, EVENTS_CHANNEL, { onMessage: kick, onDown: onError, onUp: kick });

  const loop = async () => {
    while (!stopped) {
      // Under load, rounds start at most every `roundMs`: the events and outcomes that came in
      // meanwhile share one transaction. After a quiet spell the round starts at once.
      const wait = lastRound + roundMs - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pendingWake = false;
      lastRound = Date.now();
      await round(true);
      if (finished.length > 0 || stopped) continue;
      // While the promise to poll lasts, events do not notify: look again after `roundMs`.
      if (Date.now() < pollingUntil) continue;
      await sleep(pollMs);
    }
    // Stopping: no more claims; the sends under way finish and their outcomes are recorded.
    await Promise.allSettled([...inFlight]);
    while (finished.length > 0) await round(false);
  };
  const running = loop();

  return {
    async stop() {
      stopped = true;
      wakeUp?.();
      await listener.stop();
      await running;
      await sender.close().catch(() => {});
    },
  };
}
