/**
 * Voice agent benchmark: `npm run bench:voice [-- options]`.
 *
 * Replays whole phone calls, each a voice agent's six steps in order, one request each:
 * context (GET /v1/voice/context by the caller's number), search (GET /v1/patients/search by
 * name), availability (GET /v1/calendars/{id}/availability, spread by part of day, from a
 * random day of the next month), hold (POST /v1/calendars/{id}/holds on a slot offered),
 * book (POST /v1/appointments with holdId) and call (POST /v1/calls). Calls start at a fixed
 * rate (open loop: `--rate` steps per second, so `--rate`/6 calls per second) from random
 * clinics, a tenth of them in the big one; latency is counted from when a step was sent.
 * Prints p50 / p95 / p99 / max per step, the outcomes, and the machine.
 *
 * The server runs in its own process (bench/lib/voice-server.ts) on a fresh database:
 * `--clinics=100` clinics, the first with `--big=100000` patients, the others `--small=200`.
 * `--engines=postgres,pglite` (postgres needs DATABASE_URL; a database of its own is created
 * next to it and dropped), `--seconds=30`, `--rate=200`.
 * A quick run: `npm run bench:voice -- --clinics=10 --big=10000 --seconds=10`. `--profile=DIR`
 * writes the server's CPU profile (`--cpu-prof`) to DIR when it stops.
 * `--via=rest,mcp,mcp-per-tool` replays the same calls through the MCP endpoint too, in the same
 * run, the calls dealt to the roads in turn: `mcp` keeps one MCP session per phone call (initialize
 * when the call connects, timed apart as `connect`, then one request per tool), `mcp-per-tool`
 * opens a new session for each tool (initialize, then the tool call, as Vapi opens one per call
 * of a tool), timed from the session's start. The tables of every road are printed with the
 * road/REST ratio of each step's p99, and the size of the voice key's `tools/list` beside them.
 * `--mcp-client=light` (default) sends those requests over undici; `--mcp-client=sdk` runs the
 * SDK's own client, which costs about as much CPU per step as the server's answer, on the cores
 * the server shares here (bench/lib/mcp-step.ts; `npm run bench:mcp-cost` measures both).
 * Each write (hold, book, call) carries an Idempotency-Key on both roads: the REST road sends one
 * per request, as packages/client does on creations; a writing tool derives it from the call's id.
 * `--warmup=5`: seconds of the same open-loop load before the measured ones, not counted, so the
 * figures are those of a server in its steady state (every pooled connection open, its statements
 * prepared, the code compiled), as a running service is; `--warmup=0` measures from a cold start.
 *
 * `--dataset=<postgres url | database name next to DATABASE_URL's>` `--tokens=FILE`: no seed; the
 * server opens that database as it is (migrations already applied; it is kept at the end, and
 * keeps what the calls wrote: holds, appointments, calls), e.g. one `npm run seed:scale --
 * --database=NAME --tokens=FILE` made (FILE: its clinics' ids and tokens). The calls go to
 * `--clinics` of its clinics (default 100; the biggest by patients and others drawn at random, a
 * tenth of the calls to the biggest), each clinic's first active calendar, callers drawn from up
 * to `--callers=200` of each clinic's patients (their phone for the context, their name and the
 * phone's last digits for the search), dialling the facility's number. The calls use each
 * clinic's key of the tokens file, not a voice agent key: seed:scale's keys have every scope and
 * no agent kind, so the MCP road's tools/list (its size printed) is that of a key with every
 * scope, and the agent key's own checks (the clinic's AI switch read on each request) are not in
 * the figures. `--engines` is postgres alone.
 *
 * On PostgreSQL the database server's memory settings are printed with the figures, and the
 * machine's disk reads during the measured run (/proc/diskstats): the p99 of a dataset larger
 * than memory is that of its pages read from the disk (docs/operations.md, "Memory of the
 * database server"). The server's memory is printed at the end (resident now and at its peak,
 * from /proc). With
 * `--every-clinic`, after the measured run and not counted in it, one phone call over REST goes
 * to each of the clinics called (with `--dataset --clinics=10000`, every clinic of a full-size
 * dataset), eight at a time, so that the memory printed is that of a process whose caches met
 * every one of them.
 */
import { NAMES, SURNAMES } from './lib/seed.js';
import { randomUUID } from 'node:crypto';
import { Agent, request, setGlobalDispatcher, type Dispatcher } from 'undici';
import { benchArgs, dedicatedDatabase, diskReads, machine, percentile as pct, processMemoryMiB, startServerProcess } from './lib/harness.js';
import type { VoiceBenchClinic } from './lib/voice-server.js';
import { datasetClinics, datasetPeople, datasetUrl, postgresSettings, readTokens } from './lib/dataset.js';
import { mcpClientKind, mcpSession, mcpStep, ROADS as ALL_ROADS, type McpSession, type Road } from './lib/mcp-step.js';

const args = benchArgs();
const CLINICS = Number(args.clinics ?? 100);
const BIG = Number(args.big ?? 100_000);
const SMALL = Number(args.small ?? 200);
const SECONDS = Number(args.seconds ?? 30);
const RATE = Number(args.rate ?? 200);
const WARMUP_SECONDS = Number(args.warmup ?? 5);
const DATASET = args.dataset;
const CALLERS = Number(args.callers ?? 200);
const ENGINES = DATASET ? ['postgres'] : (args.engines ?? (process.env.DATABASE_URL ? 'postgres,pglite' : 'pglite')).split(',');
const STEPS = ['context', 'search', 'availability', 'hold', 'book', 'call'] as const;
const ROADS: Road[] = ['rest', ...(args.via ?? 'rest').split(',').filter((r) => r !== 'rest')].map((r) => {
  if (!(ALL_ROADS as readonly string[]).includes(r)) throw new Error(`--via: a road is one of ${ALL_ROADS.join(', ')}, not ${r}`);
  return r as Road;
});
const MCP_CLIENT = mcpClientKind(args['mcp-client'], 'light');
/** The tool of each step, with its arguments made from the REST request's (the same names). */
const TOOLS: Record<(typeof STEPS)[number], string> = {
  context: 'get_caller_context',
  search: 'search_patients',
  availability: 'find_slots',
  hold: 'hold_slot',
  book: 'book_appointment',
  call: 'log_call',
};
type Step = (typeof STEPS)[number];

// The names bench/lib/seed.ts gives patient i (phone +39333 and i on 7 digits).
const nameOf = (i: number) =>
  `${NAMES[i % NAMES.length]} ${SURNAMES[Math.floor(i / NAMES.length) % SURNAMES.length]}${i % 7 === 0 ? '' : ` ${SURNAMES[Math.floor(i / (NAMES.length * SURNAMES.length)) % SURNAMES.length]}`}`;

setGlobalDispatcher(new Agent({ connections: 256, keepAliveTimeout: 30_000 }));

async function startServer(env: Record<string, string>, given: VoiceBenchClinic[] | null) {
  const nodeArgs = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : [];
  const { child, ready, stop } = await startServerProcess<{ port: number; engine: string; clinics: VoiceBenchClinic[]; seedSeconds: number }>(
    'bench/lib/voice-server.ts',
    env,
    nodeArgs,
  );
  return {
    base: `http://127.0.0.1:${ready.port}/v1`,
    engine: ready.engine,
    clinics: given ?? ready.clinics,
    seedSeconds: ready.seedSeconds,
    pid: child.pid!,
    stop,
  };
}

/** `--dataset`: the clinics to call, read from the database (bench/lib/dataset.ts), each with callers among its patients. */
async function datasetCallees(url: string): Promise<VoiceBenchClinic[]> {
  const clinics = await datasetClinics(url, readTokens(args.tokens), CLINICS);
  const people = await datasetPeople(
    url,
    clinics.map((c) => c.clinicId),
    CALLERS,
  );
  return clinics.map((c) => ({
    token: c.token,
    calendarId: c.calendarId,
    patients: c.patients,
    to: c.facilityPhone ?? undefined,
    callers: people
      .get(c.clinicId)!
      .filter((p) => p.phone)
      .map((p) => ({ name: `${p.firstName} ${p.lastName}`, phone: p.phone! })),
  }));
}

/** The bytes of the `tools/list` answer a key gets: what a platform fetches at every new session. */
async function toolsListSize(url: string, token: string): Promise<number> {
  const res = await request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  return Buffer.byteLength(await res.body.text());
}

async function runEngine(engine: string): Promise<void> {
  let db: { url: string; drop: () => Promise<void> } | null = null;
  let given: VoiceBenchClinic[] | null = null;
  if (DATASET) {
    db = { url: await datasetUrl(DATASET), drop: async () => {} };
    given = await datasetCallees(db.url);
  } else if (engine === 'postgres') {
    if (!process.env.DATABASE_URL) throw new Error('--engines=postgres needs DATABASE_URL');
    db = await dedicatedDatabase(process.env.DATABASE_URL, `dcm_bench_voice_${process.pid}`);
  }
  const server = await startServer(
    {
      ...(db ? { DATABASE_URL: db.url } : {}),
      BENCH_CLINICS: String(CLINICS),
      BENCH_BIG: String(BIG),
      BENCH_SMALL: String(SMALL),
      ...(DATASET ? { BENCH_DATASET: '1' } : {}),
    },
    given,
  );
  const mcpUrl = server.base.replace(/\/v1$/, '/mcp');
  const toolsListBytes = ROADS.some((r) => r !== 'rest') ? await toolsListSize(mcpUrl, server.clinics[0]!.token) : null;
  const empty = (): Record<Step, number[]> => ({ context: [], search: [], availability: [], hold: [], book: [], call: [] });
  const byRoad: Record<Road, Record<Step, number[]>> = { rest: empty(), mcp: empty(), 'mcp-per-tool': empty() };
  /** The `mcp` road's session openings (initialize and its notification), once per phone call. */
  const connects: number[] = [];
  /** Every measured step as (when it was sent, ms since the load began; its latency): the tail by time. */
  const timeline: Array<[number, number]> = [];
  let began = 0;
  const outcomes = new Map<string, number>();
  const count = (k: string) => outcomes.set(k, (outcomes.get(k) ?? 0) + 1);

  async function step<T = any>(
    road: Road,
    name: Step,
    clinic: VoiceBenchClinic,
    method: string,
    path: string,
    body?: unknown,
    toolArgs?: Record<string, unknown>,
    session?: McpSession,
  ): Promise<{ status: number; body: T }> {
    const latencies = byRoad[road];
    const started = performance.now();
    if (road !== 'rest') {
      const answer = session
        ? await session.call<T>(TOOLS[name], toolArgs ?? {})
        : await mcpStep<T>(mcpUrl, clinic.token, TOOLS[name], toolArgs ?? {}, MCP_CLIENT);
      latencies[name].push(performance.now() - started);
      timeline.push([started - began, performance.now() - started]);
      count(`${road} ${name} ${answer.status}`);
      return answer;
    }
    // undici's request rather than fetch: the same kept-alive connections for a third of the
    // CPU (0.08 against 0.27 ms per request with a bare server in the same process, second of two
    // runs of 8,000), and on two cores the callers' CPU is taken from the server and the database.
    const res = await request(server.base + path, {
      method: method as Dispatcher.HttpMethod,
      // A write sends an Idempotency-Key, as the project's client does on every creation and as a
      // writing tool does on /mcp (derived from the call's id): the same guarantee on both roads.
      headers: { authorization: `Bearer ${clinic.token}`, ...(body ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const parsed = (await res.body.json()) as T;
    latencies[name].push(performance.now() - started);
    timeline.push([started - began, performance.now() - started]);
    count(`${name} ${res.statusCode}`);
    return { status: res.statusCode, body: parsed };
  }

  let calls = 0;
  async function call(): Promise<void> {
    const road = ROADS[calls++ % ROADS.length]!;
    const clinic =
      Math.random() < 0.1 || server.clinics.length === 1 ? server.clinics[0]! : server.clinics[1 + Math.floor(Math.random() * (server.clinics.length - 1))]!;
    let session: McpSession | undefined;
    if (road === 'mcp') {
      const connecting = performance.now();
      session = await mcpSession(mcpUrl, clinic.token, MCP_CLIENT);
      connects.push(performance.now() - connecting);
    }
    try {
      await phoneCall(road, clinic, session);
    } finally {
      await session?.close();
    }
  }

  async function phoneCall(road: Road, clinic: VoiceBenchClinic, session: McpSession | undefined): Promise<void> {
    const at = <T>(name: Step, method: string, path: string, body?: unknown, toolArgs?: Record<string, unknown>) =>
      step<T>(road, name, clinic, method, path, body, toolArgs, session);
    const i = 1 + Math.floor(Math.random() * clinic.patients);
    // A caller of the dataset's, or patient i of bench/lib/seed.ts's.
    const caller = clinic.callers?.length ? clinic.callers[Math.floor(Math.random() * clinic.callers.length)]! : null;
    const phone = caller ? caller.phone : `333 ${String(i).padStart(7, '0')}`;
    const name = caller ? caller.name : nameOf(i);
    const to = clinic.to ?? '02 1234 5678';
    const context = await at<any>('context', 'GET', `/voice/context?from=${encodeURIComponent(phone)}&to=${encodeURIComponent(to)}`, undefined, {
      from: phone,
      to,
    });
    // The name and, as an agent asks before acting on a name, a second detail: the phone's last digits.
    const phoneLast = phone.replace(/\D/g, '').slice(-4);
    const search = await at<any>('search', 'GET', `/patients/search?q=${encodeURIComponent(name)}&phoneLast=${phoneLast}&limit=5`, undefined, {
      q: name,
      phoneLast,
      limit: 5,
    });
    const patientId: string | undefined = context.body.caller?.patients?.[0]?.id ?? search.body.data?.[0]?.id;
    const from = new Date(Date.now() + (1 + Math.floor(Math.random() * 30)) * 86_400_000);
    from.setUTCHours(0, 0, 0, 0);
    const availability = await at<any>(
      'availability',
      'GET',
      `/calendars/${clinic.calendarId}/availability?from=${from.toISOString()}&spread=part_of_day&limit=6`,
      undefined,
      {
        calendarId: clinic.calendarId,
        from: from.toISOString(),
        spread: 'part_of_day',
        limit: 6,
      },
    );
    const slots: Array<{ start: string }> = availability.body.data ?? [];
    const externalCallId = `bench-${randomUUID()}`;
    let booked = false;
    if (patientId && slots.length > 0) {
      const slot = slots[Math.floor(Math.random() * slots.length)]!;
      const holdBody = { start: slot.start, holderRef: externalCallId, ttlSeconds: 120 };
      const hold = await at<any>('hold', 'POST', `/calendars/${clinic.calendarId}/holds`, holdBody, {
        ...holdBody,
        calendarId: clinic.calendarId,
        callId: externalCallId,
      });
      if (hold.status === 201) {
        const bookBody = { holdId: hold.body.id, patientId };
        const book = await at<any>('book', 'POST', '/appointments', bookBody, { ...bookBody, callId: externalCallId });
        booked = book.status === 201;
      }
    }
    const callBody = { externalCallId, direction: 'inbound', from: phone, to, outcome: booked ? 'booked' : 'information', ...(patientId ? { patientId } : {}) };
    await at('call', 'POST', '/calls', callBody, { ...callBody, callId: externalCallId });
  }

  const callsPerSecond = RATE / STEPS.length;
  let failed = 0;
  /** Calls started at the rate (open loop) for `seconds`, awaited; returns when the last ends. */
  async function openLoop(seconds: number): Promise<void> {
    const total = Math.round(callsPerSecond * seconds);
    const start = performance.now();
    const running: Promise<void>[] = [];
    for (let n = 0; n < total; n++) {
      const due = start + (n * 1000) / callsPerSecond;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      running.push(call().catch(() => void failed++));
    }
    await Promise.all(running);
  }

  // Warm up, not measured: a few calls one after another (JIT, caches), then a few at once,
  // so the server has the warm database connections a running server has (a new backend's
  // first statements cost tens of ms: src/db/database.ts).
  for (let w = 0; w < 10; w++) await call();
  for (let w = 0; w < 3; w++) await Promise.all(Array.from({ length: 10 }, () => call()));
  await openLoop(WARMUP_SECONDS);
  failed = 0;
  for (const road of ROADS) for (const k of STEPS) byRoad[road][k].length = 0;
  connects.length = 0;
  timeline.length = 0;
  outcomes.clear();

  const disk = diskReads();
  began = performance.now();
  await openLoop(SECONDS);
  const elapsed = (performance.now() - began) / 1000;
  const diskAfter = diskReads();
  const sent = ROADS.reduce((n, road) => n + STEPS.reduce((s, k) => s + byRoad[road][k].length, 0), 0);

  const sizes = server.clinics.map((c) => c.patients);
  console.log(
    DATASET
      ? `\n== ${server.engine}: dataset ${DATASET}, ${sizes.length} of its clinics called (the biggest of ${sizes[0]} patients${sizes.length > 1 ? `, the others ${Math.min(...sizes.slice(1))}-${Math.max(...sizes.slice(1))}` : ''}), up to ${CALLERS} callers each`
      : `\n== ${server.engine}: ${CLINICS} clinics (one of ${BIG} patients, the others ${SMALL}), seeded in ${server.seedSeconds.toFixed(0)} s`,
  );
  if (db) console.log(await postgresSettings(db.url));
  if (disk && diskAfter)
    console.log(
      `the machine's disks during the measured run: ${diskAfter.reads - disk.reads} reads, ${(diskAfter.mib - disk.mib).toFixed(0)} MiB (pages not in memory)`,
    );
  console.log(
    `${Math.round(callsPerSecond * SECONDS)} calls in ${elapsed.toFixed(1)} s: ${(sent / elapsed).toFixed(0)} steps/s (target ${RATE}); calls that threw: ${failed}`,
  );
  const roadTitle: Record<Road, string> = { rest: 'REST', mcp: 'MCP (one session per phone call)', 'mcp-per-tool': 'MCP (a new session per tool call)' };
  for (const road of ROADS) {
    console.log(`${roadTitle[road]}\nstep          n     p50 ms   p95 ms   p99 ms   max ms${road === 'rest' ? '' : '  p99 /REST'}`);
    const row = (k: string, xs: number[], ratio: string) =>
      console.log(
        `${k.padEnd(12)} ${String(xs.length).padStart(5)} ${[pct(xs, 50), pct(xs, 95), pct(xs, 99), Math.max(...xs)].map((v) => v.toFixed(1).padStart(8)).join(' ')}${ratio}`,
      );
    if (road === 'mcp' && connects.length > 0) row('(connect)', connects, '');
    for (const k of STEPS) {
      const xs = byRoad[road][k];
      row(k, xs, road === 'rest' ? '' : `  ${(pct(xs, 99) / pct(byRoad.rest[k], 99)).toFixed(2).padStart(10)}`);
    }
  }
  if (toolsListBytes !== null) console.log(`the voice key's tools/list: ${toolsListBytes} bytes`);
  // A p99 of a few hundred samples is its few slowest: one pause of the VM moves a road's ratio
  // by half (docs/performance.md, "the voice calls through MCP at 200 steps/s").
  const fewest = Math.min(...ROADS.flatMap((road) => STEPS.map((k) => byRoad[road][k].length)));
  if (ROADS.length > 1 && fewest < 1000)
    console.log(`note: ${fewest} samples of a step on a road: too few for its p99 ratio to hold; run longer (--seconds) to compare roads`);
  // Whether the slow steps come together (a pause of the server or the database) or spread.
  const slices = new Map<number, number[]>();
  for (const [at, ms] of timeline) {
    const slice = Math.max(0, Math.floor(at / 5000));
    if (!slices.has(slice)) slices.set(slice, []);
    slices.get(slice)!.push(ms);
  }
  console.log(
    `every step by when it was sent, 5 s slices (p50 / p99 / max ms): ${[...slices.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([slice, xs]) => `${slice * 5}-${slice * 5 + 5} s ${[pct(xs, 50), pct(xs, 99), Math.max(...xs)].map((v) => v.toFixed(0)).join('/')}`)
      .join(', ')}`,
  );
  console.log(
    `outcomes: ${[...outcomes.entries()]
      .sort()
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')}`,
  );
  if (args['every-clinic'] !== undefined) {
    outcomes.clear();
    const started = performance.now();
    let next = 0;
    const one = async (): Promise<void> => {
      while (next < server.clinics.length) await phoneCall('rest', server.clinics[next++]!, undefined).catch(() => count('threw'));
    };
    await Promise.all(Array.from({ length: 8 }, one));
    console.log(
      `every clinic: ${server.clinics.length} phone calls in ${((performance.now() - started) / 1000).toFixed(0)} s, one to each clinic called; outcomes: ${[
        ...outcomes.entries(),
      ]
        .sort()
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}`,
    );
  }
  const mib = (field: 'VmRSS' | 'VmHWM') => (processMemoryMiB(server.pid, field) ?? NaN).toFixed(0);
  console.log(`the server's memory: resident ${mib('VmRSS')} MiB now, ${mib('VmHWM')} MiB at its peak`);
  await server.stop();
  await db?.drop();
}

async function main(): Promise<void> {
  console.log(machine());
  console.log(
    `bench:voice ${DATASET ? `--dataset=${DATASET} --clinics=${CLINICS} --callers=${CALLERS}` : `--clinics=${CLINICS} --big=${BIG} --small=${SMALL}`} --rate=${RATE} --seconds=${SECONDS} --engines=${ENGINES.join(',')} --via=${ROADS.join(',')}${ROADS.includes('mcp') ? ` --mcp-client=${MCP_CLIENT}` : ''}`,
  );
  for (const engine of ENGINES) await runEngine(engine);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
