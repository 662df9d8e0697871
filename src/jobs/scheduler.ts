/**
 * Periodic jobs (overdue installments, retention purges, ...). Each job must be safe to run
 * in several processes at once: it claims its rows with conditional updates, so a second
 * process finds nothing left to do.
 */
import type { AppContext } from '../context.js';

export interface Job {
  name: string;
  everyMs: number;
  run(ctx: AppContext): Promise<unknown>;
}

export interface Running {
  stop(): Promise<void>;
}

export function startScheduler(ctx: AppContext, jobs: Job[], log: (msg: string, err?: unknown) => void): Running {
  let stopped = false;
  const inFlight = new Set<Promise<unknown>>();
  const timers = jobs.map((job) => {
    const tick = () => {
      if (stopped) return;
      const p = job
        .run(ctx)
        .catch((err) => log(`job ${job.name} failed`, err))
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    };
    const timer = setInterval(tick, job.everyMs);
    timer.unref();
    setImmediate(tick);
    return timer;
  });
  return {
    async stop() {
      stopped = true;
      timers.forEach(clearInterval);
      await Promise.allSettled([...inFlight]);
    },
  };
}
