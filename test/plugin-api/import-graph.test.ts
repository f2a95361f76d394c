// Plugins never import each other: every .ts/.tsx file under plugins/* and examples/* may import files of its own
// package, third-party packages, and of Quad only `@quad/core` and `@quad/core/testing` (the plugin API), and, for
// dashboard pages, `@quad/web/sdk` and `@quad/web/build`. What one module offers another goes through the core (a
// service, an event). This walks the real tree, so a plugin added later is covered with no edit here.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import t from 'tap';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');
const ALLOWED_QUAD = new Set(['@quad/core', '@quad/core/testing', '@quad/web/sdk', '@quad/web/build']);

/** Package folders: plugins/<name>, examples/<name>. */
function packages(): string[] {
  return ['plugins', 'examples'].flatMap((top) => readdirSync(join(ROOT, top))
    .map((name) => join(ROOT, top, name))
    .filter((dir) => statSync(dir).isDirectory()));
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? tsFiles(path) : /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** Names of the workspace packages (plugins, examples, the core, the dashboard): importing one by name is importing Quad code. */
function workspaceNames(): Set<string> {
  const names = new Set<string>();
  for (const dir of [...packages(), join(ROOT, 'core'), join(ROOT, 'core', 'web')]) {
    try {
      names.add(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name);
    } catch { /* a folder without a package.json is not a package */ }
  }
  return names;
}

/** Every module specifier a file imports: static, type-only, re-exports, side-effect and dynamic imports. */
function specifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

/** Why an import of `spec` from `file` (in package folder `pkg`) breaks the rule, or null. */
function importProblem(file: string, pkg: string, spec: string, workspace: Set<string>): string | null {
  if (spec.startsWith('.')) {
    const target = resolve(dirname(file), spec);
    if (target !== pkg && !target.startsWith(pkg + sep)) return `reaches outside its package by relative path: ${spec}`;
    return null;
  }
  const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
  if (ALLOWED_QUAD.has(spec)) return null;
  if (name === '@quad/core') return `imports core internals: ${spec} (only @quad/core and @quad/core/testing)`;
  if (name === '@quad/web') return `imports the dashboard's internals: ${spec} (only @quad/web/sdk and @quad/web/build)`;
  if (workspace.has(name) || name.startsWith('@quad/')) return `imports another Quad package: ${spec}`;
  return null;
}

t.test('no plugin or example imports another plugin or the core\'s internals', async (t) => {
  const workspace = workspaceNames();
  const problems: string[] = [];
  let checked = 0;
  for (const pkg of packages()) {
    for (const file of tsFiles(pkg)) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        checked++;
        const problem = importProblem(file, pkg, spec, workspace);
        if (problem) problems.push(`${relative(ROOT, file)}: ${problem}`);
      }
    }
  }
  t.ok(checked > 50, `walked the plugins' imports (${checked})`);
  t.same(problems, [], 'every import stays in its package or goes through @quad/core');
});

t.test('the check catches each kind of import it forbids', async (t) => {
  const workspace = workspaceNames();
  const pkg = join(ROOT, 'plugins', 'store');
  const file = join(pkg, 'test', 'checkout.test.ts');
  const source = [
    "import { addEntry } from '@quad/plugin-points';",
    "import type { Member } from '@quad/plugin-points';",
    "export { x } from '../../points/ledger.js';",
    "import { startFakeDiscord } from '../../../test/fakes/discord/index.js';",
    "const m = await import('../../../core/src/auth/token-admin.js');",
    "import { Registry } from '@quad/core/src/modules/registry.js';",
    "import hello from 'quad-plugin-hello';",
    "import './setup.js';",
    "import { defineModule } from '@quad/core';",
    "import { startTestApp } from '@quad/core/testing';",
    "import { Type } from '@sinclair/typebox';",
    "import { useApi } from '@quad/web/sdk';",
    "import { Sidebar } from '@quad/web/src/shell/sidebar.js';",
  ].join('\n');
  const verdicts = specifiers(source).map((spec) => [spec, importProblem(file, pkg, spec, workspace) !== null]);
  t.same(verdicts, [
    ['@quad/plugin-points', true], ['@quad/plugin-points', true], ['../../points/ledger.js', true],
    ['../../../test/fakes/discord/index.js', true], ['../../../core/src/auth/token-admin.js', true],
    ['@quad/core/src/modules/registry.js', true], ['quad-plugin-hello', true], ['./setup.js', false],
    ['@quad/core', false], ['@quad/core/testing', false], ['@sinclair/typebox', false],
    ['@quad/web/sdk', false], ['@quad/web/src/shell/sidebar.js', true],
  ]);
});

t.test('the store no longer depends on the points package', async (t) => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'plugins', 'store', 'package.json'), 'utf8'));
  t.notOk({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.devDependencies }['@quad/plugin-points']);
});
