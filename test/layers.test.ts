/**
 * The layers of DESIGN.md "Layout", read from the import graph with the TypeScript compiler's
 * own scanner (static imports, re-exports and dynamic `import()`): the contract's core sits
 * below the transport. Only src/http itself and src/app.ts (which assembles it) may import
 * src/http; src/core imports nothing but src/core, Node's built-ins and TypeBox (its shared schemas);
 * the outbox (src/events) imports no module at run time: the modules import it, and declare
 * their events' data in their own events.ts, assembled above them (src/event-schemas.ts).
 * Between the modules: no import cycle; each is used from outside through its front door
 * (index.ts); the nouns below src/modules/scheduling import none of each other.
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

/** What a file imports for its values, as written: `import type` and `export type` are left out (they vanish at compile time). */
function runtimeSpecifiersOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, false);
  return source.statements.flatMap((statement) => {
    const typeOnly = (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly) || (ts.isExportDeclaration(statement) && statement.isTypeOnly);
    const specifier = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
    return typeOnly || !specifier || !ts.isStringLiteral(specifier) ? [] : [specifier.text];
  });
}

/** Kysely's query builders: a call of one of these starts a query. */
const QUERY_STARTS = new Set(['selectFrom', 'selectNoFrom', 'insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto']);

/** The queries a file starts itself (`db.selectFrom(…)`, `trx.insertInto(…)`…), by the builder's name, with their line. */
function queriesStartedIn(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && QUERY_STARTS.has(node.expression.name.text)) {
      found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.expression.name.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The `src/…` files a file imports for their values. */
function runtimeImportsOf(file: string): string[] {
  return runtimeSpecifiersOf(file)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(root, resolve(root, dirname(file), specifier)).replace(/\.js$/, '.ts'));
}

const graph = sourceFiles('src').map((file) => ({ file, ...importsOf(file) }));
const within = (path: string, folder: string) => path.startsWith(`${folder}/`);

/** The module of a file under src/modules (`src/modules/<module>/…`), or null. */
const moduleOf = (path: string): string | null => /^src\/modules\/([^/]+)\//.exec(path)?.[1] ?? null;

/** Each module's imports of other modules (any import, types included), with the file that makes it. */
const moduleEdges = graph.flatMap(({ file, local }) => {
  const from = moduleOf(file);
  return from === null
    ? []
    : local.flatMap((target) => {
        const to = moduleOf(target);
        return to !== null && to !== from ? [{ from, to, line: `${file} -> ${target}` }] : [];
      });
});

/** The cycles of the module graph: for each module on one, the shortest way back to itself. */
function moduleCycles(): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of moduleEdges) next.set(from, (next.get(from) ?? new Set()).add(to));
  const cycles: string[] = [];
  for (const start of next.keys()) {
    // Breadth-first from start: each module reached remembers the one it was reached from.
    const reachedFrom = new Map<string, string>();
    const queue = [start];
    let last: string | undefined;
    while (queue.length > 0 && last === undefined) {
      const at = queue.shift()!;
      for (const to of next.get(at) ?? []) {
        if (to === start) last = at;
        else if (!reachedFrom.has(to)) {
          reachedFrom.set(to, at);
          queue.push(to);
        }
      }
    }
    if (last === undefined) continue;
    const path = [last];
    while (path[0] !== start) path.unshift(reachedFrom.get(path[0]!)!);
    cycles.push([...path, start].join(' -> '));
  }
  return cycles;
}

/**
 * The files the modules themselves import (the context, the database layer, the outbox and the
 * events' data assembled for it): they read a module's declarations (its events' data, its
 * rows' types, its runtime's type) from the file that declares them, never through its front
 * door, which would load the module's services, which import them back (a circle of files).
 */
const BELOW_THE_MODULES = (file: string) =>
  file === 'src/context.ts' || file === 'src/event-schemas.ts' || within(file, 'src/db') || within(file, 'src/events');
/** What a file below the modules may read of one: declarations that import no service. */
const DECLARATIONS = /^src\/modules\/[^/]+\/(events|schema|writer|authenticate|runtime)\.ts$/;

/**
 * Imports past a module's front door: a file outside src/modules/<m>/ (under src, bench or
 * scripts) importing a file of src/modules/<m>/ other than its index.ts, types included. A
 * module's own files import each other directly. Tests (test/**) may import a module's parts:
 * they test the parts (a store's statement, a pure rule) as well as what the module offers.
 */
function pastFrontDoors(files: Array<{ file: string; local: string[] }>): string[] {
  return files.flatMap(({ file, local }) =>
    local
      .filter((target) => {
        const module = moduleOf(target);
        if (BELOW_THE_MODULES(file)) return module !== null && !DECLARATIONS.test(target);
        return module !== null && moduleOf(file) !== module && target !== `src/modules/${module}/index.ts`;
      })
      .map((target) => `${file} -> ${target}`),
  );
}

/** The nouns under src/modules/scheduling: each keeps its rows and imports none of the others. */
const SCHEDULING_NOUNS = ['appointments', 'calendars', 'holds', 'waitlist'];
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

  it('src/events (the outbox) imports no module and nothing above the modules at run time (types only)', () => {
    const below = ['src/events', 'src/core', 'src/db', 'src/lib'];
    const offending = graph
      .filter(({ file }) => within(file, 'src/events'))
      .flatMap(({ file }) =>
        runtimeImportsOf(file)
          .filter((target) => !below.some((folder) => within(target, folder)))
          .map((target) => `${file} -> ${target}`),
      );
    expect(graph.filter(({ file }) => within(file, 'src/events')).flatMap(({ file }) => runtimeImportsOf(file))).toContain('src/events/fan-out.ts');
    expect(offending).toEqual([]);
  });

  it("a module's SQL is in its stores: elsewhere under src/modules, kysely is imported for types only", () => {
    const isStore = (file: string) => /(^|\/|-)store\.ts$/.test(file);
    const moduleFiles = graph.filter(({ file }) => within(file, 'src/modules'));
    const stores = moduleFiles.filter(({ file }) => isStore(file) && runtimeSpecifiersOf(file).includes('kysely'));
    expect(stores.map(({ file }) => file)).toContain('src/modules/patients/store.ts');
    const offending = moduleFiles.filter(({ file }) => !isStore(file) && runtimeSpecifiersOf(file).includes('kysely')).map(({ file }) => file);
    expect(offending).toEqual([]);
    // Nor does any such file start a query on the handle it is given: the statement is its store's.
    expect(moduleFiles.flatMap(({ file }) => (isStore(file) ? [] : queriesStartedIn(file)))).toEqual([]);
    expect(queriesStartedIn('src/modules/facilities/store.ts').length).toBeGreaterThan(0);
  });

  it('no import cycle between modules (DESIGN.md convention 11): two modules that need each other are a command above two nouns', () => {
    expect(moduleEdges.length).toBeGreaterThan(20);
    expect(moduleCycles()).toEqual([]);
  });

  it('the scheduling nouns (appointments, calendars, holds, waitlist) import none of each other: src/modules/scheduling sits above them', () => {
    expect(moduleEdges.some(({ from, to }) => from === 'scheduling' && to === 'calendars')).toBe(true);
    const offending = moduleEdges.filter(({ from, to }) => SCHEDULING_NOUNS.includes(from) && SCHEDULING_NOUNS.includes(to)).map(({ line }) => line);
    expect(offending).toEqual([]);
  });

  it('a module is used through its front door: outside src/modules/<m>/, only src/modules/<m>/index.ts is imported (tests excepted)', () => {
    const beside = ['bench', 'scripts'].flatMap((dir) => sourceFiles(dir)).map((file) => ({ file, ...importsOf(file) }));
    expect(beside.length).toBeGreaterThan(10);
    expect(graph.find((f) => f.file === 'src/jobs/index.ts')?.local).toContain('src/modules/scheduling/index.ts');
    const offending = pastFrontDoors([...graph, ...beside]);
    console.log(`front doors: ${offending.length} imports past one${offending.map((l) => `\n  ${l}`).join('')}`);
    expect(offending).toEqual([]);
  });

  it('one road to the data: the routes, the MCP tools and the CLI start no query, they call the services', () => {
    const transport = graph.filter(({ file }) => ['src/http', 'src/agents', 'src/cli'].some((folder) => within(file, folder)));
    expect(transport.length).toBeGreaterThan(20);
    expect(transport.flatMap(({ file }) => queriesStartedIn(file))).toEqual([]);
  });

  it('tests mirror the code: every module of src/modules has its folder of tests in test/modules', () => {
    const modules = readdirSync(join(root, 'src/modules'), { withFileTypes: true }).filter((e) => e.isDirectory());
    expect(modules.length).toBeGreaterThan(20);
    const untested = modules
      .map((e) => e.name)
      .filter((name) => {
        try {
          return !readdirSync(join(root, 'test/modules', name)).some((f) => f.endsWith('.test.ts'));
        } catch {
          return true;
        }
      });
    expect(untested).toEqual([]);
  });
});
