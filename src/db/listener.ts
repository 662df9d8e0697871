/**
 * A LISTEN that stays up: when the listening connection breaks (a PostgreSQL restart, a
 * network cut, pg_terminate_backend), it listens again after growing waits. Notifications sent
 * while it was down are lost, so the caller is told when it goes down and when it is back, to
 * make up for them (the worker looks for due deliveries; the change feed forgets its cache).
 */
import { DatabaseClosedError, type Database } from './database.js';

/** Waits before listening again after the listening connection broke. */
const RELISTEN_MS = [100, 250, 500, 1_000, 2_000, 5_000];

interface ListenerEvents {
  onMessage: (payload: string) => void;
  /** Listening (again) after a failed first attempt or a break. */
  onUp?: () => void;
  /** The connection broke, or an attempt to listen failed. */
  onDown?: (error: unknown) => void;
}

export interface Listener {
  readonly up: boolean;
  stop(): Promise<void>;
}

/** Resolves after the first attempt to listen, whether it worked (`up`) or is being retried. */
export async function keepListening(database: Database, channel: string, events: ListenerEvents): Promise<Listener> {
  let unlisten: (() => Promise<void>) | null = null;
  let retry: NodeJS.Timeout | null = null;
  let failures = 0;
  let stopped = false;

  const attempt = async (first: boolean): Promise<void> => {
    try {
      const stop = await database.listen(channel, events.onMessage, (error) => {
        unlisten = null;
        if (stopped) return;
        events.onDown?.(error);
        scheduleRetry();
      });
      if (stopped) return void (await stop());
      unlisten = stop;
      failures = 0;
      if (!first) events.onUp?.();
    } catch (error) {
      if (stopped || error instanceof DatabaseClosedError) return;
      events.onDown?.(error);
      scheduleRetry();
    }
  };
  const scheduleRetry = () => {
    if (stopped || retry) return;
    const wait = RELISTEN_MS[Math.min(failures++, RELISTEN_MS.length - 1)];
    retry = setTimeout(() => {
      retry = null;
      void attempt(false);
    }, wait);
    retry.unref();
  };

  await attempt(true);
  return {
    get up() {
      return unlisten !== null;
    },
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await unlisten?.().catch(() => {});
    },
  };
}
