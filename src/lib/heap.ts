/**
 * The server process's garbage collection, tuned for a request server (issues 18 and 20).
 *
 * Growth. Under load almost every object a request makes is garbage a moment later, but
 * requests waiting on the database outlive a young-generation collection and are promoted; V8
 * then lets the old generation grow to several times its live size (the faster its collector,
 * the more) before marking it. On `GET /appointments` at 50 connections that was a peak resident size of
 * 280-300 MiB over a live heap of about 55 MiB (issue 20, target 250). Growing the old
 * generation by at most half its live size before the next collection keeps the peak near
 * 170 MiB, at the same measured throughput (`npm run bench:api`, README "Proof under load").
 *
 * Pretenuring. V8 watches where objects are allocated, and when enough of one site's objects
 * survive a young collection it allocates that site's objects in the old generation from then
 * on. The driver's result rows are such a site: under concurrent requests many rows are still
 * in flight at a collection, so every row of every later query, even one request at a time,
 * was born old and left to the next marking. A name search promoted about 55 KB that way
 * (`--trace-gc-nvp`; the sampling heap profiler with the objects collected by full collections:
 * `_handleDataRow` and `parseDataRowMessage` of `pg`), so the old generation was marked every
 * 1.7 s at 150 searches/s and a search meeting a marking step (up to 9 ms on the main thread)
 * paid for it. Without pretenuring, 2,000 name searches ran without a single full collection
 * (4-5 with it), and the uncached list page at 50 connections served 1,227-1,341 req/s against
 * 960-989 with it (two alternating pairs of runs, 20,000 rows; peak RSS 171-174 MiB both ways).
 *
 * V8 reads both flags while it collects, so setting them once the process runs takes effect.
 *
 * The young generation's size is not among them: V8 sizes it when the process starts, and a
 * `--max-semi-space-size` set from here is ignored (measured: the new space stayed at 32 MB).
 * So `npm start` passes `--max-semi-space-size=32` on Node's command line (package.json; the
 * tests and benchmarks read it from there: serviceNodeFlags in test/helpers/process.ts). With
 * V8's default 16 MB semi-space, scavenges were a fifth of the server's CPU on an uncached list
 * page at 50 connections (`perf`): 50 requests in flight each hold their rows, so much of the
 * young generation is still alive at each scavenge and is copied. Doubled, the server's CPU
 * per page fell by 15-20% (three servers of 100,000 appointments, 16, 32 and 64 MB, runs
 * alternated: 0.83-1.10 ms, 0.68-0.92, 0.64-0.92), for 36 MiB more resident memory (170,
 * 206, 259 MiB after the runs); 64 MB went past the 250 MiB target of issue 20.
 */
import v8 from 'node:v8';

const HEAP_GROWING_PERCENT = 50;

/** Called first by every server entry point (src/main.ts, the benchmarks' servers). */
export function tuneHeap(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
