/**
 * The server process's heap growth. Under load almost every object a request makes is garbage
 * a moment later, but requests waiting on the database outlive a young-generation collection and
 * are promoted; V8 then lets the old generation grow to about twice its live size (more for a
 * fast collector) before marking it. On `GET /appointments` at 50 connections that was a peak
 * resident size of 280-300 MiB over a live heap of about 55 MiB (issue 20, target 250).
 *
 * Growing the old generation by at most half its live size before the next collection keeps the
 * peak near 170 MiB; the marking runs more often, concurrently, and the measured throughput did
 * not move beyond the machine's noise (`npm run bench:api`, README "Performance"). V8 reads this
 * flag at every collection, so setting it once the process runs takes effect.
 *
 * The price is in the tail of requests that meet a marking: a name search over HTTP, one at a
 * time, p99 16-17 ms with it against 12-14 ms without (src/modules/patients/README.md). 100 %
 * (peak about 190 MiB) and 200 % (235 MiB) were measured too; neither moved that tail clearly.
 */
import v8 from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

/** Called first by every server entry point (src/main.ts, the benchmarks' servers). */
export function limitHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
