/**
 * Plans that stay on their tenant: every statement the service issues on the hot paths (a voice
 * call's steps, the lists, the jobs and the delivery worker's claim; bench/lib/plans-drive.ts),
 * captured while the real routes run on a small seeded database of three clinics, is explained
 * with its parameters under `enable_seqscan = off`. A sequential scan of a tenant table then
 * means no index serves the statement; an index scan whose condition does not hold it to one
 * clinic walks other clinics' entries (bench/lib/plans.ts says what binds a scan). Either fails,
 * unless the statement is one that reads across clinics by design (CROSS_TENANT, with why).
 * A new query without its index fails here. `npm run bench:plans` shows the same with ANALYZE on
 * a bigger dataset.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drivePlans, planTarget } from '../../bench/lib/plans-drive.js';
import { explainAll, report, StatementCapture, type Explained } from '../../bench/lib/plans.js';
import { seedClinic } from '../../bench/lib/seed.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';

const capture = new StatementCapture();
let server: TestServer;
let explained: Explained[];
let failures: string[];

beforeAll(async () => {
  server = await startTestServer({ config: { webhookAllowInsecure: true }, onQuery: capture.watcher });
  // The clinic driven has the most patients; two others give the tables rows that are not its own.
  await seedClinic(server.ctx.db, 1500, 0);
  await seedClinic(server.ctx.db, 300, 0);
  await seedClinic(server.ctx.db, 200, 0);
  await sql`ANALYZE`.execute(server.ctx.db);
  const target = await planTarget(server.ctx.db);
  failures = await drivePlans(server.ctx, { base: server.url, adminToken: ADMIN_TOKEN }, target, capture);
  explained = await explainAll(server.ctx.db, capture.statements(), { analyze: false, seqscanOff: true });
  console.log(report(explained, false).join('\n'));
}, 120_000);

afterAll(() => server?.close());

describe('plans of the hot statements', () => {
  it('captured the statements of every phase and explained each', () => {
    expect(failures).toEqual([]);
    const phases = new Set(explained.map((e) => e.phase));
    for (const phase of [
      'GET /v1/voice/context',
      'GET /v1/patients/search',
      'POST /v1/appointments',
      'GET /v1/tasks',
      'job purge-webhook-data',
      'worker claim',
    ])
      expect(phases, phase).toContain(phase);
    expect(explained.filter((e) => e.error).map((e) => `[${e.phase}] ${e.sql.slice(0, 200)}: ${e.error}`)).toEqual([]);
  });

  it('scans no tenant table sequentially and reads no other clinic, but where a job does so by design', () => {
    const flagged = explained.filter((e) => e.flags.length > 0);
    expect(flagged.map((e) => `[${e.phase}] ${e.sql.replace(/\s+/g, ' ').slice(0, 300)} -> ${JSON.stringify(e.flags)}`)).toEqual([]);
  });
});
