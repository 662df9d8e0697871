/**
 * The table "From a spec rule to its code and its test" of docs/development.md stays true: every
 * path it names exists, every symbol it gives a file (`path`: `name`, … up to the next path) is a
 * word of that file, every test title it quotes ("…" after a test file) is in that file, and each
 * row names at least one file of code and one file of tests. A path is written from the
 * repository's root, so that a file that moves leaves a row this test names.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const read = (p: string) => fs.readFileSync(new URL(p, ROOT), 'utf8');
const exists = (p: string) => fs.existsSync(new URL(p, ROOT));

const HEADING = '## From a spec rule to its code and its test';
/** A file path as the table writes it: a folder, a slash, a name with an extension. */
const PATH = /^[\w.-]+(\/[\w.-]+)+\.[a-z]+$/;
/** The roots a path of the table starts from. */
const ROOTS = ['src/', 'test/', 'bench/', 'packages/', 'scripts/', 'docs/'];
/** A name a file declares or uses: `busyTimesQuery`, `RateLimiter.check`, `DISABLE_AFTER_DISCARDED`. */
const SYMBOL = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

interface Row {
  rule: string;
  code: string;
  test: string;
}

/** The table's rows (header and separator left out). */
function tableRows(markdown: string): Row[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(HEADING);
  if (start < 0) throw new Error(`docs/development.md has no heading "${HEADING}"`);
  const table = lines.slice(start + 1).filter((line, i, all) => line.startsWith('|') && all.slice(0, i).every((l) => l === '' || l.startsWith('|')));
  return table.slice(2).map((line) => {
    const cells = line.slice(1, -1).split(' | ');
    if (cells.length !== 3) throw new Error(`a row of the table has ${cells.length} cells, not 3: ${line.slice(0, 80)}`);
    const [rule, code, test] = cells.map((c) => c.trim()) as [string, string, string];
    return { rule, code, test };
  });
}

/** The files a cell names, each with the names given after it (`path`: `a`, `b`) and the titles quoted after it. */
function citations(cell: string): Array<{ path: string; symbols: string[]; titles: string[] }> {
  const out: Array<{ path: string; symbols: string[]; titles: string[] }> = [];
  // Names follow a path only when a colon opens them: `path`: `a`, `b`.
  let namesOpen = false;
  // A backticked span (with the colon after it, if any), or a quoted test title.
  for (const [, span, colon, title] of cell.matchAll(/`([^`]+)`(:?)|"([^"]+)"/g)) {
    const last = out[out.length - 1];
    if (title !== undefined) {
      last?.titles.push(title);
    } else if (PATH.test(span!)) {
      out.push({ path: span!, symbols: [], titles: [] });
      namesOpen = colon === ':';
    } else if (last && namesOpen && SYMBOL.test(span!)) {
      last.symbols.push(span!);
    }
  }
  return out;
}

/** Whether `name` is a whole word of `text` (each part of a dotted name). */
function hasWord(text: string, name: string): boolean {
  return name.split('.').every((part) => new RegExp(`(^|[^\\w$])${part.replace(/\$/g, '\\$')}($|[^\\w$])`).test(text));
}

/** What is wrong with one row, each problem on its own line. */
function problemsOf(row: Row, index: number): string[] {
  const name = `row ${index + 1} ("${row.rule.slice(0, 60)}…")`;
  const problems: string[] = [];
  const code = citations(row.code);
  const tests = citations(row.test);
  if (code.length === 0) problems.push(`${name}: names no file in its code column`);
  if (!tests.some((c) => c.path.startsWith('test/'))) problems.push(`${name}: names no file under test/ in its test column`);
  for (const { path, symbols, titles } of [...code, ...tests]) {
    if (!ROOTS.some((r) => path.startsWith(r))) {
      problems.push(`${name}: ${path} is not written from the repository's root (${ROOTS.join(', ')})`);
      continue;
    }
    if (!exists(path)) {
      problems.push(`${name}: ${path} does not exist`);
      continue;
    }
    const text = read(path);
    for (const s of symbols) if (!hasWord(text, s)) problems.push(`${name}: ${path} has no ${s}`);
    for (const t of titles) if (!text.includes(t)) problems.push(`${name}: ${path} has no test "${t}"`);
  }
  return problems;
}

describe('the rule -> code -> test table of docs/development.md', () => {
  const rows = tableRows(read('docs/development.md'));

  it('is found, with its rows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(7);
  });

  it('names files that exist, symbols they hold and tests they run, code and a test on every row', () => {
    const problems = rows.flatMap(problemsOf);
    expect(problems, `docs/development.md, the table "${HEADING.slice(3)}":\n${problems.join('\n')}\n`).toEqual([]);
  });

  it('reads a cell as the table writes it', () => {
    expect(citations('`src/a/b.ts`: `one`, `Two.three` (`not a symbol`) and `src/c/d.ts` then `e`; "a title" `429 x`')).toEqual([
      { path: 'src/a/b.ts', symbols: ['one', 'Two.three'], titles: [] },
      { path: 'src/c/d.ts', symbols: [], titles: ['a title'] },
    ]);
    expect(hasWord('const busyTimesQuery = 1', 'busyTimesQuery')).toBe(true);
    expect(hasWord('const busyTimesQueryX = 1', 'busyTimesQuery')).toBe(false);
  });
});
