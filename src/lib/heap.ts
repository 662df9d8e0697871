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
 */
import v8 from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

/** Called first by every server entry point (src/main.ts, the benchmarks' servers). */
export function limitHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
