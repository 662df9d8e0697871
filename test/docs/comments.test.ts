/**
 * Comments say why the code is as it is, in words a clone can follow: none points at a ticket
 * of a tracker this repository does not hold ("issue" and a number). History goes to the commit
 * message, figures to docs/performance.md. Read from every file of the code (src, test, bench,
 * scripts, examples, the client package, CI's script): the comments of TypeScript and JavaScript
 * (found with the compiler's parser, so a `//` inside a string, a template or a regular
 * expression is not taken for one), the `--` and block comments of SQL, the `#` comments of
 * shell, and the whole text of Markdown (a README's prose is its comment).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** "issue" or "issues" (any case), then a number, after spaces or a `#`. */
const TICKET = /\bissues?(\s+#?|\s*#)\d/i;

const SCRIPT = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(path);
    return [path];
  });
}

/** Where the string, template and regular-expression literals of a script are: no comment starts inside one. */
function literalRanges(file: string, text: string): Array<[number, number]> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const ranges: Array<[number, number]> = [];
  const visit = (node: ts.Node): void => {
    const literal =
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isRegularExpressionLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isJsxText(node);
    if (literal) ranges.push([node.getStart(source), node.end]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return ranges.sort((a, b) => a[0] - b[0]);
}

/** The comments of a text, each as its start offset and its text. */
function commentsOf(text: string, lineStart: string, skip: Array<[number, number]> = []): Array<{ at: number; text: string }> {
  const comments: Array<{ at: number; text: string }> = [];
  let next = 0;
  let i = 0;
  while (i < text.length) {
    while (next < skip.length && skip[next]![1] <= i) next += 1;
    if (next < skip.length && skip[next]![0] <= i) {
      i = skip[next]![1];
      continue;
    }
    if (text.startsWith(lineStart, i)) {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      comments.push({ at: i, text: text.slice(i, stop) });
      i = stop;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      comments.push({ at: i, text: text.slice(i, stop) });
      i = stop;
    } else {
      i += 1;
    }
  }
  return comments;
}

const SHELL = (file: string) => file.endsWith('.sh') || file === '.ci/run';

/** A shell script's `#` comments: from a `#` at a line's start or after a space to the line's end. */
function shellComments(text: string): Array<{ at: number; text: string }> {
  return [...text.matchAll(/(^|\s)(#[^\n]*)/gm)].map((m) => ({ at: m.index + m[1]!.length, text: m[2]! }));
}

/** Where the code is: every file under these folders, and CI's script. */
const CODE = ['src', 'test', 'bench', 'scripts', 'examples', 'packages/client/src'];

/** `file:line` of every comment line of a file that names a ticket. */
function ticketsIn(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const lineOf = (at: number) => text.slice(0, at).split('\n').length;
  let comments: Array<{ at: number; text: string }>;
  if (SCRIPT.test(file)) comments = commentsOf(text, '//', literalRanges(file, text));
  else if (file.endsWith('.sql')) comments = commentsOf(text, '--');
  else if (file.endsWith('.md')) comments = [{ at: 0, text }];
  else if (SHELL(file)) comments = shellComments(text);
  else return [];
  return comments.flatMap(({ at, text: comment }) => {
    const first = lineOf(at);
    return comment.split('\n').flatMap((line, k) => (TICKET.test(line) ? [`${file}:${first + k}`] : []));
  });
}

describe('comments', () => {
  it('name no ticket of an outside tracker ("issue" and a number) in the code, its benchmarks, scripts and CI', () => {
    const found = [...CODE.flatMap(files), '.ci/run'].flatMap(ticketsIn);
    expect(found).toEqual([]);
  });

  it('are told from code: a ticket in a comment is found, one in a string or a pattern is not', () => {
    const text = [
      "const url = 'http://example.test/issue 12'; // issue 3",
      'const pattern = /\\/\\/ issue 4/;',
      '/* Issues 5 and 6 */ const t = `// issue 7 ${url} /* issue 8 */`;',
    ].join('\n');
    const comments = commentsOf(text, '//', literalRanges('probe.ts', text)).map((c) => c.text);
    expect(comments).toEqual(['// issue 3', '/* Issues 5 and 6 */']);
    expect(comments.every((c) => TICKET.test(c))).toBe(true);
    expect(shellComments('echo "issue 9" # issue 10\n# issue 11\nurl=a#b').map((c) => c.text)).toEqual(['# issue 10', '# issue 11']);
  });
});
