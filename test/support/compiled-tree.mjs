// The suite's compiled tree, where `npm test` runs tap: the repository mirrored in .test-build/ (ignored by git), each
// TypeScript file compiled to JavaScript where it sits (esbuild, file by file, as scripts/build.mjs builds dist/ and as
// tsx compiles for `npx tap file.ts`) beside a link to its source, every other file, and every folder without
// TypeScript, a link to the original (migrations, fixtures, READMEs, built pages, dist/). Test processes then run plain
// JavaScript: tsx's loader hooks cost each test process about 1.7 s of CPU (Node runs them on another thread, a
// round trip per module), a fifth of the suite's CPU on two cores when each file had a process of its own.
//
// In the tree, relative imports and `import.meta.url` paths land where they do in the sources, and tap's working
// directory is the tree, so paths relative to it do too. Workspace packages resolve to their mirrors (entry points
// renamed .ts -> .js; a `production` entry still names the package's real dist/), every other package to its
// installed folder. A process a test starts through tsx follows the source links to the originals; autoload mounts
// regular files only, so route folders mount the JavaScript. Tests that work on the repository as such (git, a clone,
// the Docker context) use test/support/repo-root.ts. Links lead to the real files: a test must not write through them.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildWeb } from '../../scripts/build-web.mjs';
import { writeTestGroups } from './test-groups.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The tree's folder: .test-build for the suite, or the one named (the benchmarks build theirs in .bench-build). */
const OUT = join(ROOT, process.argv[2] ?? '.test-build');
/**
 * Not mirrored: the trees themselves, git's, tap's (the tree has its own .taprc) and run-time folders; node_modules
 * below; and ESLint's config, which ESLint looks up from each file's folder: a copy in the tree would make the tree a
 * project of its own, whose files the ReDoS check would cover instead of ignoring.
 */
const SKIP = new Set(['.git', '.test-build', '.bench-build', '.tap', '.taprc', 'coverage', 'data', 'node_modules', 'eslint.config.js']);
const COMPILED = /(?<!\.d)\.tsx?$/;

/** A package.json whose entry points name TypeScript, with them named as their compiled files (null: it has none). */
function compiledManifest(file) {
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  if (!pkg.exports && !pkg.main) return null;
  const renamed = (value) => typeof value === 'string' ? value.replace(COMPILED, '.js')
    : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'production' ? v : renamed(v)])) : value;
  return JSON.stringify({ ...pkg, exports: renamed(pkg.exports), main: renamed(pkg.main) }, null, 2);
}

/**
 * Mirrors `dir` into the tree; returns the files to compile. A folder with none below it becomes one link (dist/ and
 * node_modules/ folders always do).
 */
function mirror(dir, top = false) {
  const sources = [];
  const here = join(OUT, relative(ROOT, dir));
  mkdirSync(here, { recursive: true });
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (top && SKIP.has(e.name)) continue;
    const path = join(dir, e.name);
    const target = join(here, e.name);
    const inner = e.isDirectory() && e.name !== 'node_modules' && e.name !== 'dist' ? mirror(path) : null;
    if (inner?.length) {
      sources.push(...inner);
      continue;
    }
    if (inner) rmSync(target, { recursive: true });
    if (COMPILED.test(e.name)) sources.push(path);
    const manifest = e.name === 'package.json' && !top ? compiledManifest(path) : null;
    if (manifest) writeFileSync(target, manifest);
    else symlinkSync(path, target);
  }
  return sources;
}

/** The workspace packages by name, each at its folder. */
function workspaces() {
  const { workspaces: globs } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const dirs = globs.flatMap((glob) => glob.endsWith('/*')
    ? readdirSync(join(ROOT, glob.slice(0, -2)), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(ROOT, glob.slice(0, -2), e.name))
    : [join(ROOT, glob)]);
  return dirs.filter((d) => existsSync(join(d, 'package.json'))).map((d) => ({ dir: d, name: JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')).name }));
}

/**
 * tap's settings in the tree: the repository's, for the compiled test files (several to a process: test-groups.mjs)
 * and without tsx, and without tap's process-info loader (see tap-loader-off.mjs; NODE_OPTIONS, so it runs before
 * tap's own --import).
 */
const taprc = (files) => `extends: ../.taprc
include:
${files.map((f) => `  - "${f}"`).join('\n')}
node-arg:
  - "--enable-source-maps"
test-env:
  - "NODE_OPTIONS=--import=${pathToFileURL(join(ROOT, 'test', 'support', 'tap-loader-off.mjs')).href}"
`;

/**
 * The tree's node_modules: each installed package linked (a scope is a folder of links), but the workspace packages,
 * which are their mirrors.
 */
function linkPackages() {
  const mirrored = new Map(workspaces().map(({ dir, name }) => [name, join(OUT, relative(ROOT, dir))]));
  const link = (name) => {
    const target = join(OUT, 'node_modules', name);
    if (name.startsWith('@') && !name.includes('/')) {
      mkdirSync(target);
      for (const e of readdirSync(join(ROOT, 'node_modules', name))) link(`${name}/${e}`);
    } else symlinkSync(mirrored.get(name) ?? join(ROOT, 'node_modules', name), target);
  };
  mkdirSync(join(OUT, 'node_modules'));
  for (const e of readdirSync(join(ROOT, 'node_modules'))) link(e);
}

async function buildCompiledTree() {
  const began = performance.now();
  // The pages the browser tests load, built first so their dist/ folders exist to be linked.
  await buildWeb();
  rmSync(OUT, { recursive: true, force: true });
  const sources = mirror(ROOT, true);
  linkPackages();
  await build({
    entryPoints: sources, outdir: OUT, outbase: ROOT, format: 'esm', platform: 'node', target: 'node22.12',
    sourcemap: 'inline', sourcesContent: false, tsconfig: join(ROOT, 'tsconfig.json'), logLevel: 'warning',
  });
  writeFileSync(join(OUT, '.taprc'), taprc(writeTestGroups(ROOT, OUT)));
  console.log(`compiled tree: ${sources.length} files in ${Math.round(performance.now() - began)} ms -> ${relative(ROOT, OUT)}`);
}

await buildCompiledTree();
