// The modules the dashboard shares with plugin page bundles (shared-modules.json): a plugin's bundle imports them
// by bare specifier and the dashboard's import map resolves each to the dashboard's own copy, so the page runs on
// the same React (hooks work), the same query cache and the same SDK as the shell.
//
// Each shared module is an entry of the dashboard's build whose exports are kept (an ES module with named
// exports). React is CommonJS, whose names a bundler cannot see: its entry names every export (read from the
// package at build time) off the one CommonJS module the app uses too, so there is exactly one React. In the dev
// server the import map points at the same entries, served from source.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

type Kind = 'commonjs' | 'module' | 'sdk';
export const SHARED: Record<string, Kind> = JSON.parse(readFileSync(new URL('../shared-modules.json', import.meta.url), 'utf8'));
const SDK_ENTRY = fileURLToPath(new URL('../src/sdk/index.ts', import.meta.url));
const PREFIX = 'quad-shared:';
/** The HTML entries that load plugin bundles, and so get the import map. */
const PLUGIN_HOSTS = ['/web/index.html', '/web/member/index.html'];
const requireHere = createRequire(import.meta.url);

/** The entry that stands for a shared module. */
function entrySource(specifier: string, kind: Kind): string {
  if (kind === 'sdk') return `export * from ${JSON.stringify(SDK_ENTRY)};\n`;
  if (kind === 'module') return `export * from ${JSON.stringify(specifier)};\n`;
  const names = Object.keys(requireHere(specifier)).filter((n) => n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n));
  return [`import m from ${JSON.stringify(specifier)};`, 'export default m;', `export const { ${names.join(', ')} } = m;`, ''].join('\n');
}

/** Build inputs: one entry per shared module, named `shared-<specifier>`. */
export function sharedInputs(): Record<string, string> {
  return Object.fromEntries(Object.keys(SHARED).map((s) => [`shared-${s.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}`, `${PREFIX}${s}`]));
}

export function sharedModules(): Plugin {
  let base = '/';
  return {
    name: 'quad-shared-modules',
    configResolved(config) {
      base = config.base;
    },
    resolveId(id) {
      if (id.startsWith(PREFIX)) return `\0${id}`;
      if (id.startsWith(`\0${PREFIX}`)) return id;
      return null;
    },
    load(id) {
      if (!id.startsWith(`\0${PREFIX}`)) return null;
      const specifier = id.slice(PREFIX.length + 1);
      return entrySource(specifier, SHARED[specifier]!);
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        // Only the pages that load plugin bundles: the dashboard and the member shell (not the store pages).
        if (!PLUGIN_HOSTS.some((page) => ctx.filename.endsWith(page))) return [];
        const imports: Record<string, string> = {};
        for (const specifier of Object.keys(SHARED)) {
          const id = `\0${PREFIX}${specifier}`;
          if (ctx.bundle) {
            const chunk = Object.values(ctx.bundle).find((c) => c.type === 'chunk' && c.isEntry && c.facadeModuleId === id);
            if (!chunk) throw new Error(`shared module ${specifier}: no entry chunk in the build`);
            imports[specifier] = `${base}${chunk.fileName}`;
          } else {
            imports[specifier] = `${base}@id/__x00__${PREFIX}${specifier}`; // the dev server's address of a virtual module
          }
        }
        // First in <head>: an import map must come before every module script and preload.
        return [{ tag: 'script', attrs: { type: 'importmap' }, children: JSON.stringify({ imports }), injectTo: 'head-prepend' }];
      },
    },
  };
}
