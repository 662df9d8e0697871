/**
 * The layers of DESIGN.md "Layout", read from the import graph with the TypeScript compiler's
 * own scanner (static imports, re-exports and dynamic `import()`): the contract's core sits
 * below the transport. Only src/http itself and src/app.ts (which assembles it) may import
 * src/http; src/core imports nothing but src/core, Node's built-ins and TypeBox (its shared schemas).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every `src/…` file a file imports (relative specifiers resolved; `.js` names the `.ts` source), and its bare imports. */
function importsOf(file: string): { local: string[]; bare: string[] } {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  const local: string[] = [];
  const bare: string[] = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) bare.push(fileName);
    else local.push(relative(root, resolve(root, dirname(file), fileName)).replace(/\.js$/, '.ts'));
  }
  return { local, bare };
}

const graph = sourceFiles('src').map((file) => ({ file, ...importsOf(file) }));
const within = (path: string, folder: string) => path.startsWith(`${folder}/`);
const MAY_IMPORT_HTTP = (file: string) => within(file, 'src/http') || file === 'src/app.ts';

describe('layers (DESIGN.md "Layout")', () => {
  it('reads the import graph (a scanner that found nothing would pass every rule)', () => {
    expect(graph.length).toBeGreaterThan(50);
    expect(graph.find((f) => f.file === 'src/app.ts')?.local).toContain('src/http/plugins/caller.ts');
  });

  it('nothing outside src/http and src/app.ts imports src/http', () => {
    const offending = graph.flatMap(({ file, local }) =>
      MAY_IMPORT_HTTP(file) ? [] : local.filter((target) => within(target, 'src/http')).map((target) => `${file} -> ${target}`),
    );
    console.log(
      `import check: ${graph.length} files under src; ${offending.length} import src/http from outside it${offending.map((l) => `\n  ${l}`).join('')}`,
    );
    expect(offending).toEqual([]);
  });

  it('src/core imports only src/core, Node built-ins and TypeBox', () => {
    const offending = graph
      .filter(({ file }) => within(file, 'src/core'))
      .flatMap(({ file, local, bare }) => [
        ...local.filter((target) => !within(target, 'src/core')).map((target) => `${file} -> ${target}`),
        ...bare.filter((name) => !name.startsWith('node:') && name !== 'typebox').map((name) => `${file} -> ${name}`),
      ]);
    expect(offending).toEqual([]);
  });
});
