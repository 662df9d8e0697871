/** CLI output: a table for people, JSON for scripts (`--json`). */

export function printTable(rows: Array<Record<string, unknown>>, columns?: string[]): void {
  if (rows.length === 0) {
    console.log('(none)');
    return;
  }
  const cols = columns ?? Object.keys(rows[0]!);
  const cell = (v: unknown) => (v === null || v === undefined ? '' : Array.isArray(v) ? v.join(',') : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  console.log(line(cols));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(cols.map((c) => cell(r[c]))));
}

export function printResult(value: unknown, json: boolean, columns?: string[]): void {
  if (json) {
    console.log(JSON.stringify(value, null, 2));
    return;
  }
  const rows = Array.isArray(value) ? value : [value];
  printTable(rows as Array<Record<string, unknown>>, columns);
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
