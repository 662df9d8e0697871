/**
 * The request line and the credential headers, fuzzed. Each run takes a
 * gated route, respells its path with one to three spellings of test/security/spellings.ts
 * chained, and sends it with a credential that must not open that route: none, the wrong
 * plane's (a v1 key on the back office, the admin token on /v1), or a mangled one (case,
 * spacing, a second Authorization header, a list, junk around the token). Every answer must
 * be a refusal in the envelope (400, 401 or 404): never 2xx, never 5xx.
 *
 * FUZZ_RUNS sets the runs (40 by default in `npm test`, 400 with `npm run fuzz`); FUZZ_SEED replays.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlannedRoute } from '../../src/http/planes.js';
import type { Tenant } from '../helpers/factories.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';
import { sendLine, spellingsOf } from '../security/spellings.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 40) * 5;
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const SOME_ID = 'b5a1c7e2-0d3f-4a9b-8c6e-1f2d3e4a5b6c';

let server: TestServer;
let tenant: Tenant;
let port: number;
let routes: PlannedRoute[];
const seen = new Map<number, number>();

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.factories.tenant();
  port = Number(new URL(server.url).port);
  routes = server.app.plannedRoutes.filter((r) => r.plane !== 'public' && r.method !== 'HEAD');
});
afterAll(async () => {
  console.log(
    `request-line fuzz: ${RUNS} runs; answers by status: ${[...seen]
      .sort()
      .map(([s, n]) => `${s}×${n}`)
      .join(' ')}`,
  );
  await server?.close();
});

/** Credentials that must not open a route of `plane`, as header lists (a header may repeat). */
function wrongCredentials(plane: PlannedRoute['plane']): Array<Array<[string, string]>> {
  const right = plane === 'admin' ? ADMIN_TOKEN : tenant.token;
  const wrong = plane === 'admin' ? tenant.token : ADMIN_TOKEN;
  return [
    [],
    [['authorization', `Bearer ${wrong}`]],
    [['authorization', '']],
    [['authorization', 'Bearer']],
    [['authorization', `Basic ${Buffer.from(`x:${right}`).toString('base64')}`]],
    [['authorization', `Bearer ${right}x`]],
    [['authorization', `Bearer x${right}`]],
    [['authorization', `Bearer ${right.slice(0, -1)}`]],
    [['authorization', `Bearer ${right.toUpperCase()}`]],
    [['authorization', `Bearer ${wrong},${right}`]],
    [
      ['authorization', `Bearer ${wrong}`],
      ['authorization', `Bearer ${right}`],
    ],
    [['x-authorization', `Bearer ${right}`]],
    [['proxy-authorization', `Bearer ${right}`]],
    [['cookie', `token=${right}`]],
  ];
}

describe('request-line and credential fuzz', () => {
  it('never lets a respelled path past its gate without the right credential', async () => {
    const arbitrary = fc
      .record({
        route: fc.integer({ min: 0, max: 10_000 }),
        steps: fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 3 }),
        credential: fc.integer({ min: 0, max: 100 }),
      })
      .map(({ route: r, steps, credential }) => {
        const route = routes[r % routes.length]!;
        let target = route.url.replace(/:[A-Za-z0-9_]+/g, SOME_ID);
        const kinds: string[] = [];
        let extra: Array<[string, string]> = [];
        for (const step of steps) {
          // Chain only spellings that stay origin-form; an absolute form or a header game ends the chain.
          const options = spellingsOf(target, port);
          const pick = options[step % options.length]!;
          kinds.push(pick.kind);
          target = pick.target;
          if (pick.headers) extra = Object.entries(pick.headers);
          if (!target.startsWith('/') || pick.headers) break;
        }
        const credentials = wrongCredentials(route.plane);
        return { route, target, kinds, headers: [...extra, ...credentials[credential % credentials.length]!] };
      });
    await fc.assert(
      fc.asyncProperty(arbitrary, async ({ route, target, kinds, headers }) => {
        const answer = await sendLine(port, route.method, target, headers);
        seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
        const where = `${route.method} ${target} [${kinds.join(' + ')}] ${JSON.stringify(headers).slice(0, 200)} -> ${answer.status} ${answer.text.slice(0, 200)}`;
        expect([400, 401, 404], where).toContain(answer.status);
        const body = JSON.parse(answer.text) as { error: { code: string; requestId: string } };
        expect(typeof body.error.code, where).toBe('string');
        expect(answer.headers['x-request-id'], where).toBe(body.error.requestId);
      }),
      { numRuns: RUNS, seed: SEED, verbose: 1 },
    );
  });
});
