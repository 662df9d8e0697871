/**
 * The worker process of `bench:webhooks --dataset`: the delivery worker alone, configured from the
 * environment as `src/main.ts --role=worker` is, without that role's periodic jobs. On a dataset
 * those jobs apply the service's retention (events past 30 days, deliveries past theirs, the
 * access log's old months, measured: a medium seed:scale database lost half its access log and
 * most of its events in one run) and would leave the next benchmarks a smaller database than
 * the one seeded. On a fresh database (the benchmark's default) they find nothing to do and the
 * benchmark still runs `--role=worker`. Runs under tsx; stops on SIGTERM.
 */
import { closeContext, createContext } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config.js';
import { startDeliveryWorker } from '../../src/modules/webhooks/index.js';

const ctx = await createContext(loadConfig(), { skipMigrations: true });
const worker = await startDeliveryWorker(ctx, { onError: (err) => console.error('webhook worker', err) });
process.on('SIGTERM', () => {
  void (async () => {
    await worker.stop();
    await closeContext(ctx);
    process.exit(0);
  })();
});
