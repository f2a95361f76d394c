// The production build (`npm run build`, run by `npm start` first): every workspace package whose package.json
// exports a `production` entry is compiled file by file, TypeScript to JavaScript, into its dist/ folder, with the
// same tree (route folders stay folders for autoload) and its other files (SQL migrations) copied beside, so
// `new URL('./migrations/', import.meta.url)` finds them. esbuild strips the types exactly as tsx does in
// development and tests (the tsconfig's isolatedModules and verbatimModuleSyntax make a file-by-file compile
// safe); type errors are `npm run typecheck`'s job. dist/ is rebuilt whole each time (a few hundred ms), so a
// file deleted from the source never lingers there.
//
// `--if-stale` (what `npx quad` runs first) rebuilds only the packages whose source files are not the ones of their
// last build (one added or deleted) or one is newer than it (as are their package.json, the tsconfig or this script):
// a no-op of a few milliseconds when nothing changed. Each build leaves dist/.built, listing its source files and
// dated when the build began.
//
// First the web side (scripts/build-web.mjs, always only what changed): the dashboard, and each plugin's page bundle
// in its web/dist/, which the server build then copies beside the plugin's JavaScript like any other runtime file
// (a new bundle makes the package stale).
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWeb } from './build-web.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Top-level folders of a package that are not part of its runtime (bin/ holds launchers of dist/; a nested
 * `web/dist/` is runtime). The core's test harness (`@quad/core/testing`) serves tests, which run from source, and
 * imports the fakes in test/.
 */
const SKIP = new Set(['node_modules', 'dist', 'test', 'testing', 'bench', 'bin']);

function workspaces() {
  const { workspaces: globs } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  return globs.flatMap((glob) => glob.endsWith('/*')
    ? readdirSync(join(ROOT, glob.slice(0, -2)), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(ROOT, glob.slice(0, -2), e.name))
    : [join(ROOT, glob)]);
}

/** The package's source folder (where its `default` entry lives), or null when it has no production build. */
function sourceRoot(dir) {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return null;
  const entry = JSON.parse(readFileSync(file, 'utf8')).exports?.['.'];
  if (typeof entry !== 'object' || !entry.production) return null;
  return join(dir, dirname(entry.default));
}

function files(dir, root = dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    // A folder with its own package.json is another package (the pods CLI): built as itself, not as part of this one.
    if (e.isDirectory()) return (dir === root && SKIP.has(e.name)) || e.name.startsWith('.') || existsSync(join(path, 'package.json')) ? [] : files(path, root);
    // The package's own package.json and docs stay where they are; browser sources (web/*.tsx) are in the bundle.
    if (dir === root && (e.name === 'package.json' || e.name.endsWith('.md'))) return [];
    if (e.name.endsWith('.tsx')) return [];
    return [path];
  });
}

/** True when the package's dist/ is missing or older than anything it is built from. */
function stale(dir, src) {
  const stamp = join(dir, 'dist', '.built');
  const built = statSync(stamp, { throwIfNoEntry: false });
  if (!built) return true;
  const sources = files(src);
  if (readFileSync(stamp, 'utf8') !== stampOf(sources, src)) return true;
  const inputs = [...sources, join(dir, 'package.json'), join(ROOT, 'tsconfig.json'), fileURLToPath(import.meta.url)];
  return inputs.some((f) => statSync(f, { throwIfNoEntry: false })?.mtimeMs > built.mtimeMs);
}

const stampOf = (sources, src) => `${sources.map((f) => relative(src, f)).sort().join('\n')}\n`;

const onlyStale = process.argv.includes('--if-stale');
await buildWeb();

let count = 0;
let packages = 0;
for (const dir of workspaces()) {
  const src = sourceRoot(dir);
  if (!src) continue;
  packages++;
  if (onlyStale && !stale(dir, src)) continue;
  const started = new Date();
  const out = join(dir, 'dist');
  rmSync(out, { recursive: true, force: true });
  const all = files(src);
  const ts = all.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  // Loaded only when something is built: importing esbuild costs more than checking every package.
  const { build } = await import('esbuild');
  await build({
    entryPoints: ts, outdir: out, outbase: src, format: 'esm', platform: 'node', target: 'node22.12',
    sourcemap: true, tsconfig: join(ROOT, 'tsconfig.json'), logLevel: 'warning',
  });
  for (const f of all.filter((f) => !f.endsWith('.ts'))) cpSync(f, join(out, relative(src, f)));
  writeFileSync(join(out, '.built'), stampOf(all, src));
  utimesSync(join(out, '.built'), started, started);
  count += ts.length;
  console.log(`built ${relative(ROOT, dir) || '.'}: ${ts.length} files -> ${relative(ROOT, out)}`);
}
if (!packages) throw new Error('nothing to build: no workspace package exports a "production" entry');
