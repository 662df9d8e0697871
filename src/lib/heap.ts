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
 */
import v8 from 'node:v8';

const HEAP_GROWING_PERCENT = 50;

/** Called first by every server entry point (src/main.ts, the benchmarks' servers). */
export function tuneHeap(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
