// What `import()` takes for a package given by name or by path, as PLUGINS and SUBMODULES_PACKAGES name them: a path
// may name a package folder, which resolves to its package.json entry point as a package name would.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The core runs its production build (`npm start`: `--conditions=production`, package names resolve to dist/), not
 * its TypeScript source or the test suite's compiled copy of it (test/support/compiled-tree.mjs).
 */
const RUNS_BUILT = import.meta.resolve('@quad/core').includes('/dist/');

/** A package folder's entry file (the `production` condition, its build, when the core runs built); any other path as it is. */
function packageEntry(path: string): string {
  if (!existsSync(path) || !statSync(path).isDirectory()) return path;
  const manifestFile = join(path, 'package.json');
  if (!existsSync(manifestFile)) return join(path, 'index.js');
  const pkg = JSON.parse(readFileSync(manifestFile, 'utf8'));
  const root = typeof pkg.exports === 'string' ? pkg.exports : pkg.exports?.['.'];
  const entry = typeof root === 'string' ? root : (RUNS_BUILT ? root?.production : undefined) ?? root?.import ?? root?.default ?? pkg.main ?? 'index.js';
  return join(path, entry);
}

/** A package name as it is; a path (relative to `baseDir`) as the file URL of its entry. */
export function importSpecifier(spec: string, baseDir = process.cwd()): string {
  return spec.startsWith('.') || isAbsolute(spec) ? pathToFileURL(packageEntry(resolve(baseDir, spec))).href : spec;
}
