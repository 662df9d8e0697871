/**
 * The server process's garbage collection, tuned for a request server.
 *
 * Growth. Under load almost every object a request makes is garbage a moment later, but
 * requests waiting on the database outlive a young-generation collection and are promoted; V8
 * then lets the old generation grow to several times its live size (the faster its collector,
 * the more) before marking it. On `GET /appointments` at 50 connections that took the peak
 * resident size past the service's 250 MiB target. Growing the old generation by at most half
 * its live size before the next collection keeps the peak well under it, at the same
 * throughput (`npm run bench:api`; the figures are in docs/performance.md).
 *
 * Pretenuring. V8 watches where objects are allocated, and when enough of one site's objects
 * survive a young collection it allocates that site's objects in the old generation from then
 * on. The driver's result rows are such a site: under concurrent requests many rows are still
 * in flight at a collection, so every row of every later query, even one request at a time,
 * was born old and left to the next marking. A name search promoted about 55 KB that way
 * (`--trace-gc-nvp`; the sampling heap profiler with the objects collected by full collections:
 * `_handleDataRow` and `parseDataRowMessage` of `pg`), so the old generation was marked every
 * second or two under a steady search load, and a search meeting a marking step (milliseconds
 * on the main thread) paid for it. Without pretenuring, name searches run without full
 * collections and the uncached list page serves more requests a second, at the same peak
 * memory.
 *
 * V8 reads both flags while it collects, so setting them once the process runs takes effect.
 *
 * The young generation's size is not among them: V8 sizes it when the process starts, and a
 * `--max-semi-space-size` set from here is ignored (the new space keeps its start size).
 * So `npm start` passes `--max-semi-space-size=32` on Node's command line (package.json; the
 * tests and benchmarks read it from there: serviceNodeFlags in test/helpers/process.ts). With
 * V8's default 16 MB semi-space, scavenges were a large part of the server's CPU on an uncached
 * list page at 50 connections (`perf`): 50 requests in flight each hold their rows, so much of
 * the young generation is still alive at each scavenge and is copied. Doubled, the server's CPU
 * per page fell, for some more resident memory; 64 MB went past the 250 MiB target.
 */
import v8 from 'node:v8';

const HEAP_GROWING_PERCENT = 50;

/** Called first by every server entry point (src/main.ts, the benchmarks' servers). */
export function tuneHeap(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
