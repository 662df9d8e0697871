/**
 * What a tool call through MCP costs beside the same operation over REST: `npm run bench:mcp-cost
 * [-- options]`.
 *
 * A closed loop (`--concurrency=4` callers, each sending its next step when the last answered)
 * of one voice step, `--tool=list_services` (its REST operation: GET /v1/calendars), alternately
 * over REST and over MCP with a new connection per call as Vapi opens one (initialize, the
 * initialized notification, a GET answered 405, the call: four requests; `--client=sdk`, the
 * SDK's Client, by default, or `--client=light`, the same requests over undici). Prints, per road and
 * round: steps/s, p50/p99, and the CPU time per step of the server process and of this process
 * (the callers: the SDK's client on the MCP road), read by bench/lib/cpu.ts; CPU
 * per step does not depend on how busy the machine is the way latency does. `--rounds=2`,
 * `--seconds=10` per round and road. Then the server's CPU per message, each kind alone under
 * autocannon for `--seconds`: the REST operation, and the four requests of an MCP step.
 * On PostgreSQL with DATABASE_URL, else on the embedded database. `--profile=DIR` writes the
 * server's CPU profile (`--cpu-prof`) to DIR when it stops.
 */
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import autocannon from 'autocannon';
import { Agent, request, setGlobalDispatcher } from 'undici';
import { cpuPerRequest, sampleCpu } from './lib/cpu.js';
import { benchArgs, dedicatedDatabase, machine, percentile, startServerProcess } from './lib/harness.js';
import { mcpClientKind, mcpStep, type Road } from './lib/mcp-step.js';
import type { VoiceBenchClinic } from './lib/voice-server.js';

const args = benchArgs();
const SECONDS = Number(args.seconds ?? 10);
const ROUNDS = Number(args.rounds ?? 2);
const CONCURRENCY = Number(args.concurrency ?? 4);
const TOOL = args.tool ?? 'list_services';
const CLIENT = mcpClientKind(args.client, 'sdk');
/** The REST request of each tool this benchmark knows (arguments none: the step is the same on both roads). */
const REST_OF: Record<string, string> = { list_services: '/v1/calendars' };
if (!REST_OF[TOOL]) throw new Error(`--tool: one of ${Object.keys(REST_OF).join(', ')}`);

setGlobalDispatcher(new Agent({ connections: 64, keepAliveTimeout: 30_000 }));

async function measure(road: Road, base: string, clinic: VoiceBenchClinic, serverPid: number) {
  const latencies: number[] = [];
  const before = sampleCpu(serverPid);
  const end = Date.now() + SECONDS * 1000;
  const caller = async () => {
    while (Date.now() < end) {
      const started = performance.now();
      if (road === 'mcp') {
        const answer = await mcpStep(`${base}/mcp`, clinic.token, TOOL, {}, CLIENT);
        if (answer.status !== 200) throw new Error(`${TOOL} over MCP answered ${answer.status}`);
      } else {
        const res = await request(`${base}${REST_OF[TOOL]}`, { headers: { authorization: `Bearer ${clinic.token}` } });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`${REST_OF[TOOL]} answered ${res.statusCode}`);
      }
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, caller));
  const cpu = cpuPerRequest(before, sampleCpu(serverPid), latencies.length);
  const steps = latencies.length;
  return {
    steps,
    perSecond: steps / SECONDS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    serverCpu: cpu?.serverMs ?? NaN,
    callerCpu: cpu?.loadMs ?? NaN,
  };
}

/** The server's CPU per request of each kind alone: where an MCP step's cost is. */
async function perMessage(base: string, clinic: VoiceBenchClinic, serverPid: number): Promise<void> {
  const authorization = `Bearer ${clinic.token}`;
  const mcp = {
    authorization,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
  };
  const message = (body: object) => ({ url: `${base}/mcp`, method: 'POST' as const, headers: mcp, body: JSON.stringify({ jsonrpc: '2.0', ...body }) });
  const kinds: Array<[string, Record<string, unknown>]> = [
    [`REST GET ${REST_OF[TOOL]}`, { url: `${base}${REST_OF[TOOL]}`, headers: { authorization } }],
    [
      'MCP initialize',
      message({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
      }),
    ],
    ['MCP notifications/initialized', message({ method: 'notifications/initialized' })],
    ['MCP GET (405: stateless)', { url: `${base}/mcp`, headers: { authorization, accept: 'text/event-stream' } }],
    [`MCP tools/call ${TOOL}`, message({ id: 2, method: 'tools/call', params: { name: TOOL, arguments: {} } })],
  ];
  console.log(
    `\nserver CPU per request, each kind alone (autocannon, ${CONCURRENCY} connections, ${SECONDS} s)\nrequest                              req/s   server CPU ms/req`,
  );
  for (const [name, options] of kinds) {
    const before = sampleCpu(serverPid);
    const result = await autocannon({ ...options, connections: CONCURRENCY, duration: SECONDS });
    const cpu = cpuPerRequest(before, sampleCpu(serverPid), result.requests.total)?.serverMs ?? NaN;
    const failed = name.includes('405') ? result.errors : result.non2xx + result.errors;
    console.log(
      `${name.padEnd(34)} ${result.requests.average.toFixed(0).padStart(7)} ${cpu.toFixed(2).padStart(19)}${failed > 0 ? `  (${failed} failed)` : ''}`,
    );
  }
}

async function main(): Promise<void> {
  console.log(machine());
  console.log(`bench:mcp-cost --tool=${TOOL} --client=${CLIENT} --concurrency=${CONCURRENCY} --seconds=${SECONDS} --rounds=${ROUNDS}`);
  const db = process.env.DATABASE_URL ? await dedicatedDatabase(process.env.DATABASE_URL, `dcm_bench_mcp_${process.pid}`) : null;
  const { child, ready, stop } = await startServerProcess<{ port: number; engine: string; clinics: VoiceBenchClinic[] }>(
    'bench/lib/voice-server.ts',
    {
      ...(db ? { DATABASE_URL: db.url } : {}),
      BENCH_CLINICS: '2',
      BENCH_BIG: '2000',
      BENCH_SMALL: '200',
    },
    args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : [],
  );
  try {
    const base = `http://127.0.0.1:${ready.port}`;
    const clinic = ready.clinics[1]!;
    // Unmeasured: every pooled connection open, the code compiled, on both roads.
    for (const road of ['rest', 'mcp'] as const) await measure(road, base, clinic, child.pid!);
    console.log(`\n== ${ready.engine}\nround road  steps/s   p50 ms   p99 ms   server CPU ms/step   callers' CPU ms/step`);
    const ratios: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const rest = await measure('rest', base, clinic, child.pid!);
      const mcp = await measure('mcp', base, clinic, child.pid!);
      for (const [road, m] of [
        ['rest', rest],
        ['mcp', mcp],
      ] as const)
        console.log(
          `${String(round).padStart(5)} ${road.padEnd(4)} ${m.perSecond.toFixed(0).padStart(8)} ${m.p50.toFixed(1).padStart(8)} ${m.p99.toFixed(1).padStart(8)} ${m.serverCpu.toFixed(2).padStart(20)} ${m.callerCpu.toFixed(2).padStart(22)}`,
        );
      ratios.push(
        `round ${round}: server CPU per step MCP/REST ${(mcp.serverCpu / rest.serverCpu).toFixed(1)}, p50 MCP/REST ${(mcp.p50 / rest.p50).toFixed(1)}`,
      );
    }
    console.log(ratios.join('\n'));
    await perMessage(base, clinic, child.pid!);
  } finally {
    await stop();
    await db?.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
