/** CLI output: a table for people (at most 100 columns wide), JSON for scripts (`--json`), errors alike. */
import { redact } from './credentials.js';

/** The widest a table gets: cells are cut (…) to fit; `--json` has every value in full. */
const TABLE_WIDTH = 100;
const MIN_COLUMN = 8;

/** A wrong command line: exit code 2. */
export class UsageError extends Error {}

const cellOf = (v: unknown) => (v === null || v === undefined ? '' : Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v));

function formatTable(rows: Array<Record<string, unknown>>, columns?: string[], width = TABLE_WIDTH): string[] {
  if (rows.length === 0) return ['(none)'];
  const cols = columns ?? Object.keys(rows[0]!);
  const cells = rows.map((r) => cols.map((c) => cellOf(r[c])));
  const widths = cols.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  // Narrow the widest column, one character at a time, until the table fits (2 spaces between
  // columns); ids are cut last: a cut id cannot be pasted into the next command.
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (cols.length - 1);
  const isId = (c: string) => c === 'id' || c.endsWith('Id');
  while (total() > width) {
    const candidates = widths.map((w, i) => (w > MIN_COLUMN ? i : -1)).filter((i) => i >= 0);
    const pool = candidates.some((i) => !isId(cols[i]!)) ? candidates.filter((i) => !isId(cols[i]!)) : candidates;
    if (pool.length === 0) break;
    const widest = pool.reduce((a, b) => (widths[b]! > widths[a]! ? b : a));
    widths[widest]!--;
  }
  const fit = (v: string, w: number) => (v.length > w ? `${v.slice(0, w - 1)}…` : v.padEnd(w));
  const line = (values: string[]) =>
    values
      .map((v, i) => fit(v, widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(cols), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
}

export function printResult(value: unknown, json: boolean, columns?: string[]): void {
  if (json) {
    console.log(JSON.stringify(value, null, 2));
    return;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && columns === undefined) {
    // One record: a field per line, so long values are shown in full.
    const entries = Object.entries(value);
    const w = Math.max(...entries.map(([k]) => k.length));
    for (const [k, v] of entries) console.log(`${k.padEnd(w)}  ${cellOf(v)}`);
    return;
  }
  const rows = Array.isArray(value) ? value : [value];
  for (const l of formatTable(rows as Array<Record<string, unknown>>, columns)) console.log(l);
}

/** An error: one line on stderr (`error: …`), or with --json the API's error envelope as one JSON line. */
export function printError(error: { code: string; message: string; details?: Record<string, unknown> | null }, json: boolean): void {
  // Whatever an error quotes (a URL, a library's message) is printed without its credentials.
  if (json) {
    console.error(redact(JSON.stringify({ error: { code: error.code, message: error.message, details: error.details ?? null } })));
    return;
  }
  const issues = (error.details?.issues as Array<{ path: string; message: string }> | undefined) ?? [];
  const detail = issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ');
  const reason = detail ? ` (${detail})` : error.details?.reason ? ` (${String(error.details.reason)})` : '';
  console.error(redact(`error: ${error.code === 'cli' || error.code === 'usage' ? '' : `${error.code}${reason}: `}${error.message}`));
}

/** Progress on stderr, so `--json` output on stdout stays clean. */
export function progress(done: number, total: number, label: string): void {
  if (!process.stderr.isTTY) {
    if (done === total || done % Math.max(1, Math.floor(total / 10)) === 0) process.stderr.write(`${label}: ${done}/${total}\n`);
    return;
  }
  const width = 30;
  const filled = Math.round((done / Math.max(1, total)) * width);
  process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
  if (done === total) process.stderr.write('\n');
}
