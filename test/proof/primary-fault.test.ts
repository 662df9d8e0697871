/**
 * The primary killed in the middle of writes (PostgreSQL only): the service runs as a real
 * process on a private cluster (test/helpers/pg-cluster.ts) while clients create tasks, each
 * with an `Idempotency-Key` that they send again, unchanged, after a 503, a lost connection or
 * `409 idempotency_in_progress` (what the spec tells a client to do). The cluster is killed
 * (`pg_ctl stop -m immediate`: no session is told, the next start runs crash recovery), left
 * down for a while, and started again. Then:
 *   - every write a client saw acknowledged (201) is in the database exactly once, and no key
 *     made two tasks (counted by the title, unique per key); a write whose COMMIT was durable
 *     while its answer was lost is answered `409 response_lost` on retry, and is there once too;
 *   - while it was down every request was answered `503 unavailable` with `Retry-After`
 *     within 1 s: never a 500, never a dropped connection, never a hang;
 *   - the same process answers a new write with 201 within 2 s of the cluster's return;
 *   - the read cache of facilities is live again: a change made after the return (committed
 *     by SQL, announced by the change feed's trigger) is what the next cached read answers.
 * The shared PostgreSQL is never stopped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_BIN, PrivateCluster } from '../helpers/pg-cluster.js';
import { freePort, waitFor } from '../helpers/process.js';
import { ENGINE } from '../helpers/server.js';
import {
  addClinic,
  call,
  expectCacheFollowsChanges,
  expectNoUnhandled,
  expectUnavailable,
  readyStatus,
  sql,
  startWithClinic,
  type Answer,
} from '../helpers/service-faults.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Writers, each a clinic of its own: a key may send 60 requests in 10 s (spec 8), a writer sends at most 5 a second. */
const WRITERS = 4;
const PAUSE_MS = 200;
/** How long the primary stays down. */
const DOWN_MS = 1_500;

interface Attempt {
  key: string;
  startedAt: number;
  endedAt: number;
  /** null: the connection failed (no HTTP answer). */
  answer: Answer | null;
}

/** Answers a client retries with the same key: the service says so (503, or the first request with the key still runs). */
const retryable = (a: Answer | null) => a === null || a.status === 503 || (a.status === 409 && a.body?.error?.code === 'idempotency_in_progress');

describe.skipIf(ENGINE === 'pglite' || !fs.existsSync(path.join(PG_BIN, 'initdb')))('the service when its primary is killed mid-writes', () => {
  it('keeps every acknowledged write once, answers 503 quickly while down, serves again within 2 s of the return and its caches follow changes', async () => {
    const cluster = new PrivateCluster(await freePort());
    cleanups.push(() => cluster.remove());
    cluster.init();
    cluster.start();
    const { proc, base, token, facilityId } = await startWithClinic({ DATABASE_URL: cluster.url }, cleanups);

    const attempts: Attempt[] = [];
    const acknowledged = new Map<string, string>();
    /** Keys answered `409 conflict` reason `response_lost`: their work committed, its answer did not arrive. */
    const lost = new Set<string>();
    const unfinished = new Set<string>();
    let writing = true;
    let inFlight = 0;
    let giveUpAt = Infinity;

    /** One write, sent again with its key until it is acknowledged (or the test stops waiting). */
    const write = async (writerToken: string, key: string): Promise<void> => {
      for (;;) {
        const startedAt = Date.now();
        inFlight++;
        const answer = await call(base, 'POST', '/v1/tasks', writerToken, { title: `fault ${key}` }, { 'idempotency-key': key }).catch(() => null);
        inFlight--;
        attempts.push({ key, startedAt, endedAt: Date.now(), answer });
        if (answer?.status === 201) return void acknowledged.set(key, answer.body.id);
        if (answer?.status === 409 && answer.body?.error?.details?.reason === 'response_lost') return void lost.add(key);
        if (!retryable(answer)) throw new Error(`write ${key}: unexpected ${answer!.status} ${JSON.stringify(answer!.body)}`);
        if (Date.now() > giveUpAt) return void unfinished.add(key);
        await sleep(PAUSE_MS);
      }
    };
    const writerTokens = await Promise.all(Array.from({ length: WRITERS }, async (_, w) => (await addClinic(base, `Studio Guasti ${w}`)).token));
    const writers = writerTokens.map(async (writerToken, w) => {
      for (let i = 0; writing; i++) {
        await write(writerToken, `${w}-${i}`);
        await sleep(PAUSE_MS);
      }
    });

    // Every writer's first write acknowledged (a process's first requests are slow on a busy machine).
    await waitFor(() => acknowledged.size >= WRITERS, 30_000, 'a write of each writer');
    // Killed while writes are in flight: some between their key's claim, their work's commit and their key's record.
    await waitFor(() => inFlight >= 2, 10_000, 'two writes in flight');
    await sleep(Math.random() * 5);
    const ackedBefore = acknowledged.size;
    expect(ackedBefore).toBeGreaterThan(0);
    const downAt = Date.now();
    await cluster.stopAsync('immediate');
    const stoppedAt = Date.now();
    await sleep(DOWN_MS);
    const startingAt = Date.now();
    await cluster.startAsync();
    const upAt = Date.now();

    // A new write (its own key) from the moment the server accepts connections again.
    let firstOkAt = 0;
    for (let i = 0; firstOkAt === 0; i++) {
      const answer = await call(base, 'POST', '/v1/tasks', token, { title: `fault back-${i}` }, { 'idempotency-key': `back-${i}` });
      if (answer.status === 201) firstOkAt = Date.now();
      else if (Date.now() - upAt > 10_000) throw new Error(`no write succeeded 10 s after the return:\n${proc.output()}`);
      else await sleep(50);
    }
    await sleep(1_000);
    writing = false;
    // Keys left taken by a request the outage cut wait for their lease (src/db/IDEMPOTENCY.md, rule 4): not forever here.
    giveUpAt = Date.now() + 20_000;
    await Promise.all(writers);

    // Every answer while the server was down (sent after it was gone, answered before it was back): a quick 503.
    const whileDown = attempts.filter((a) => a.startedAt >= stoppedAt && a.endedAt <= startingAt);
    expect(whileDown.length).toBeGreaterThan(WRITERS);
    for (const a of whileDown) {
      expect(a.answer, `write ${a.key} while down: no HTTP answer`).not.toBeNull();
      expectUnavailable(a.answer!, `write ${a.key} while down`);
      expect(a.endedAt - a.startedAt).toBeLessThan(1_000);
    }
    // Never a 500 nor a dropped connection, before, during or after.
    for (const a of attempts) expect(a.answer?.status ?? 'no answer', `write ${a.key}`).not.toBe(500);
    expect(attempts.filter((a) => a.answer === null)).toEqual([]);
    expect(firstOkAt - upAt).toBeLessThan(2_000);

    // Exactly once: every acknowledged key has one task, with the id it was acknowledged with; no key has two.
    const rows = await sql<{ title: string; ids: string[] }>(
      cluster.url,
      `SELECT title, array_agg(id::text) AS ids FROM tasks WHERE title LIKE 'fault %' AND title NOT LIKE 'fault back-%' GROUP BY title`,
    );
    const byKey = new Map(rows.map((r) => [r.title.slice('fault '.length), r.ids]));
    for (const [key, id] of acknowledged) expect(byKey.get(key), `acknowledged write ${key}`).toEqual([id]);
    for (const [key, ids] of byKey) expect(ids.length, `tasks made with key ${key}`).toBe(1);
    for (const key of lost) expect(byKey.get(key), `write ${key} answered response_lost`).toHaveLength(1);
    expect(acknowledged.size).toBeGreaterThan(ackedBefore);

    // The read cache is live again and follows a change made after the return.
    await expectCacheFollowsChanges({ base, token, facilityId }, cluster.url, upAt + 15_000);

    expect(await readyStatus(base)).toBe(200);
    expectNoUnhandled(proc);
    const inProgress = attempts.filter((a) => a.answer?.status === 409).length;
    console.log(
      `primary killed: ${acknowledged.size} writes acknowledged (${ackedBefore} before the kill), ${inProgress} answers 409, ${lost.size} keys answered response_lost, ${unfinished.size} left waiting on their key's lease; ` +
        `kill took ${stoppedAt - downAt} ms, start ${upAt - startingAt} ms; ${whileDown.length} answers while down, slowest ` +
        `${Math.max(...whileDown.map((a) => a.endedAt - a.startedAt))} ms; first new write ${firstOkAt - upAt} ms after the return`,
    );
  }, 120_000);
});
