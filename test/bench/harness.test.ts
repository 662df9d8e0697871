/** The benchmarks' shared readers: their options, their percentiles, and what a figure stood on (bench/lib/harness.ts, dataset.ts). */
import { describe, expect, it } from 'vitest';
import { benchArgs, diskReads, percentile, readyLine } from '../../bench/lib/harness.js';
import { postgresSettings, withDataset } from '../../bench/lib/dataset.js';
import { mcpClientKind } from '../../bench/lib/mcp-step.js';

describe('benchmark options', () => {
  it('reads --name=value, a bare --name as 1, and leaves absent names undefined', () => {
    const args = benchArgs(['--rate=200', '--engines=postgres,pglite', '--profile=/tmp/p', '--via=mcp', '--http']);
    expect(args).toEqual({ rate: '200', engines: 'postgres,pglite', profile: '/tmp/p', via: 'mcp', http: '1' });
    expect(args.seconds).toBeUndefined();
  });

  it('takes sdk or light as an MCP client, the fallback when absent, and stops on anything else', () => {
    expect(mcpClientKind(undefined, 'light')).toBe('light');
    expect(mcpClientKind('sdk', 'light')).toBe('sdk');
    expect(() => mcpClientKind('ligth', 'sdk')).toThrow(/sdk or light/);
  });
});

describe('percentile', () => {
  it('is the value at rank floor(p/100 * n) of the sorted values, whatever their order', () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1
    expect(percentile(xs, 50)).toBe(51);
    expect(percentile(xs, 99)).toBe(100);
    expect(percentile(xs, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
    expect(xs[0]).toBe(100); // the input is left as it was
  });
});

describe("a bench server's ready line", () => {
  it('is read once whole, however the pipe cuts it (a thousand clinics make a line of many chunks)', () => {
    const clinics = Array.from({ length: 1000 }, (_, i) => ({ id: `clinic-${i}`, token: `dcm_test_${'x'.repeat(40)}${i}` }));
    const line = `${JSON.stringify({ ready: { port: 4321, clinics } })}\n`;
    let output = 'seeding…\n';
    const seen: unknown[] = [];
    for (let at = 0; at < line.length; at += 65_536) {
      output += line.slice(at, at + 65_536);
      seen.push(readyLine(output));
    }
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.slice(0, -1).every((ready) => ready === undefined)).toBe(true);
    expect(seen.at(-1)).toEqual({ port: 4321, clinics });
  });

  it('is none while the server has printed other lines only', () => {
    expect(readyLine('{"level":30,"msg":"listening"}\n')).toBeUndefined();
    expect(readyLine('')).toBeUndefined();
  });
});

describe('what a figure was measured on', () => {
  it('counts the disk reads of whole devices, never fewer than before', () => {
    const before = diskReads();
    if (process.platform !== 'linux') return expect(before).toBeNull();
    expect(before!.reads).toBeGreaterThan(0);
    const after = diskReads()!;
    expect(after.reads).toBeGreaterThanOrEqual(before!.reads);
    expect(after.mib).toBeGreaterThanOrEqual(before!.mib);
  });

  it.runIf(process.env.DATABASE_URL)("prints the PostgreSQL server's own shared_buffers and autovacuum", async () => {
    const shown = await withDataset(process.env.DATABASE_URL!, (client) =>
      client.query<{ shared_buffers: string; autovacuum: string }>('SELECT current_setting($1) AS shared_buffers, current_setting($2) AS autovacuum', [
        'shared_buffers',
        'autovacuum',
      ]),
    );
    const line = await postgresSettings(process.env.DATABASE_URL!);
    expect(line).toMatch(/^PostgreSQL \d+/);
    expect(line).toContain(`shared_buffers ${shown.rows[0]!.shared_buffers},`);
    expect(line).toContain(`autovacuum ${shown.rows[0]!.autovacuum}`);
  });
});
