// @quad/web/build: build a plugin's dashboard pages into one ES module bundle the dashboard loads at run time.
// The modules the dashboard shares (React, react/jsx-runtime, react-dom, @tanstack/react-query, @quad/web/sdk) stay
// bare imports: the dashboard's import map resolves them to its own copies, so the pages run on the dashboard's
// React, query cache and SDK. Any bundler does the same with these specifiers marked external.
//
//   import { buildPluginPages } from '@quad/web/build';
//   await buildPluginPages({ entry: 'web/index.tsx', outdir: 'web/dist' });   // -> web/dist/index.js
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

/** The bare specifiers the dashboard's import map resolves (shared-modules.json). */
export const SHARED_MODULES = Object.freeze(Object.keys(JSON.parse(readFileSync(new URL('../shared-modules.json', import.meta.url), 'utf8'))));

/**
 * Bundle `entry` (a .tsx/.ts/.jsx/.js module exporting the pages' components) into `outdir`/index.js.
 * @param {{ entry: string, outdir: string, minify?: boolean, logLevel?: import('esbuild').LogLevel }} options
 */
export async function buildPluginPages({ entry, outdir, minify = true, logLevel = 'warning' }) {
  return build({
    entryPoints: { index: entry },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    external: [...SHARED_MODULES],
    define: { 'process.env.NODE_ENV': '"production"' },
    minify,
    sourcemap: true,
    legalComments: 'none',
    logLevel,
  });
}
