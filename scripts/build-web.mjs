// Builds the web side: the dashboard, the store pages and the member shell (core/web -> core/web/dist) and the pages
// of every workspace plugin that has them (<package>/web/index.tsx -> <package>/web/dist/index.js, with
// @quad/web/build).
// Each part is rebuilt only when one of its inputs is newer than its last build (a stamp file in its dist), so
// `npm start`, `npm test` (tap's `before`) and `npm run build` pay for a build only after a change.
// `--force` (npm run build:web) rebuilds everything.
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WEB_ROOT = join(ROOT, 'core', 'web');
const STAMP = '.built';
/** Installed packages change with every install: a new React version rebuilds the bundles. */
const INSTALLED = join(ROOT, 'node_modules', '.package-lock.json');

/** The newest modification time under `paths` (files or folders; dist/ and node_modules/ skipped). */
function newest(paths) {
  let latest = 0;
  const walk = (path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (!stat.isDirectory()) {
      latest = Math.max(latest, stat.mtimeMs);
      return;
    }
    for (const e of readdirSync(path)) if (e !== 'dist' && e !== 'node_modules' && !e.startsWith('.')) walk(join(path, e));
  };
  paths.forEach(walk);
  return latest;
}

function isStale(dist, inputs) {
  const stamp = statSync(join(dist, STAMP), { throwIfNoEntry: false });
  return !stamp || newest([...inputs, INSTALLED]) > stamp.mtimeMs;
}

function stamp(dist) {
  writeFileSync(join(dist, STAMP), `built ${new Date().toISOString()}\n`);
}

/** Workspace packages with dashboard pages of their own (plugins/*, examples/*). */
function pluginPackages() {
  return ['plugins', 'examples'].flatMap((group) => {
    const dir = join(ROOT, group);
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(dir, e.name))
      .filter((pkg) => existsSync(join(pkg, 'web', 'index.tsx')));
  });
}

export async function buildWeb({ force = false } = {}) {
  const webDist = join(WEB_ROOT, 'dist');
  const webInputs = ['index.html', 'store', 'member', 'src', 'build', 'vite.config.ts', 'shared-modules.json', 'package.json'].map((f) => join(WEB_ROOT, f));
  // Vite and esbuild are loaded only to build: `npx quad` checks on every start, and nothing changed most times.
  if (force || isStale(webDist, webInputs)) {
    const started = Date.now();
    const { buildDashboard } = await import('../core/web/build/dashboard.mjs');
    await buildDashboard();
    stamp(webDist);
    console.log(`built ${relative(ROOT, WEB_ROOT)}: the dashboard, the store pages and the member shell -> ${relative(ROOT, webDist)} (${Date.now() - started} ms)`);
  }
  const helper = [join(WEB_ROOT, 'build', 'plugin-pages.mjs'), join(WEB_ROOT, 'shared-modules.json')];
  for (const pkg of pluginPackages()) {
    const web = join(pkg, 'web');
    const dist = join(web, 'dist');
    if (!force && !isStale(dist, [web, ...helper])) continue;
    const { buildPluginPages } = await import('../core/web/build/plugin-pages.mjs');
    await buildPluginPages({ entry: join(web, 'index.tsx'), outdir: dist });
    stamp(dist);
    console.log(`built ${relative(ROOT, pkg)}: its dashboard pages -> ${relative(ROOT, dist)}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildWeb({ force: process.argv.includes('--force') });
