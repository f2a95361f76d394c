// The plugin API's types never depend on the core's implementations: CoreServices lives in a types-only file
// (core/src/core-services.ts), so the old cycle modules/types -> services -> events/limits/secrets/jobs ->
// modules/registry -> modules/types is gone. This walks every import of core/src (value and `import type`) and fails
// on any import cycle that passes through a file with runtime code; cycles among types-only files (the manifest
// types and CoreServices refer to each other) are harmless and allowed.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import t from 'tap';
import ts from 'typescript';

const SRC = resolve(import.meta.dirname, '../../core/src');
const TYPES_ONLY = ['core-services.ts', 'modules/types.ts'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? tsFiles(path) : e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports of a file, resolved to files under core/src. */
function edges(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
}

/** Does the file declare only types (interfaces, type aliases, `import type`, `export type`)? */
function typesOnly(file: string): boolean {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  return source.statements.every((s) =>
    ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)
    || (ts.isImportDeclaration(s) && !!s.importClause?.isTypeOnly)
    || (ts.isExportDeclaration(s) && s.isTypeOnly));
}

/** Strongly connected components with more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next); low.set(v, next); next++;
    stack.push(v); onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do { w = stack.pop()!; onStack.delete(w); component.push(w); } while (w !== v);
      if (component.length > 1) found.push(component);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

t.test('the files that hold the plugin API\'s types declare only types', async (t) => {
  for (const file of TYPES_ONLY) t.ok(typesOnly(join(SRC, file)), `${file} has no runtime code`);
  t.notOk(typesOnly(join(SRC, 'services.ts')), 'the check tells a file with runtime code apart');
});

t.test('no import cycle in core/src passes through a file with runtime code', async (t) => {
  const files = tsFiles(SRC);
  const graph = new Map(files.map((f) => [f, edges(f)]));
  const bad = cycles(graph)
    .filter((component) => component.some((f) => !typesOnly(f)))
    .map((component) => component.map((f) => relative(SRC, f)).sort().join(' <-> '));
  t.same(bad, []);
});

t.test('the walk finds a cycle when there is one', async (t) => {
  const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
  t.same(cycles(graph).map((c) => c.sort()), [['a', 'b', 'c']]);
});
