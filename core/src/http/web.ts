// The web clients the service serves (built by `npm run build` into core/web/dist): the officer dashboard under
// /dashboard/ (a one-page app: every path under it answers its index.html), the member store pages at /store/<org>
// and /store/<org>/login, the modules' member pages at /<module>/<org>/<path> (the member shell, told which page to
// show), the dashboard's hashed assets (cached for a year), and the prebuilt page bundles of the plugins the
// operator enabled under /dashboard/plugins/<module>/. Every route here is public and hidden from the API document.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Settings } from '../config/schema.js';
import type { Registry } from '../modules/registry.js';
import { PLUGIN_PAGES_PREFIX, memberPageRoute, pagesBuildProblem, pagesEntryUrl, pagesFolder } from '../modules/pages.js';
import type { MemberPageDecl, Module } from '../modules/types.js';
import { notFound, unavailable } from './errors.js';

/** Vite's output for core/web (the same folder from core/src and from core/dist). */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/**
 * Where officer sign-in sends the browser back to (spec: {dashboard_url}): DASHBOARD_URL, or the dashboard this
 * service serves, at the origin of REDIRECT_URI (the service's public address). Null when neither is set.
 */
export function dashboardUrl(settings: Pick<Settings, 'DASHBOARD_URL' | 'REDIRECT_URI'>): string | null {
  if (settings.DASHBOARD_URL) return settings.DASHBOARD_URL.replace(/(?<!\/)\/+$/, '');
  return settings.REDIRECT_URI ? new URL('/dashboard', settings.REDIRECT_URI).href : null;
}

/**
 * The page's Content-Security-Policy: scripts from this origin only, plus the inline import map (by its hash: it
 * tells plugin bundles where React and the SDK are); org logos may come from any https address.
 */
function pageCsp(html: string): string {
  const inline = [...html.matchAll(/<script\b[^>]*\btype="importmap"[^>]*>([\s\S]*?)<\/script>/g)]
    .map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
  return [
    "default-src 'self'", ['script-src', "'self'", ...inline].join(' '), "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:", "font-src 'self' data:", "connect-src 'self'", "object-src 'none'",
    "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'",
  ].join('; ');
}

/** A built HTML page, read again when the build changes it (a rebuild while the service runs). */
class BuiltPage {
  private cached: { mtime: number; html: string; csp: string } | null = null;
  constructor(private readonly file: string) {}

  read() {
    const mtime = statSync(this.file, { throwIfNoEntry: false })?.mtimeMs;
    if (mtime === undefined) return null;
    if (this.cached?.mtime !== mtime) {
      const html = readFileSync(this.file, 'utf8');
      this.cached = { mtime, html, csp: pageCsp(html) };
    }
    return this.cached;
  }
}

/** The member shell's name for the page it shows (core/web/src/member/main.tsx reads it). */
export const MEMBER_PAGE_META = 'quad-member-page';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The member shell's page for one member page of one org: the built page with a <meta> naming the module's bundle,
 * the component and the org. No script is added, so the CSP's hash of the import map still holds.
 */
export function memberShellHtml(html: string, mod: Module, page: MemberPageDecl, org: { prefix: string; name: string }): string {
  const told = { entry: pagesEntryUrl(mod), component: page.component, title: page.title, org: { prefix: org.prefix, name: org.name } };
  // A function, so a `$` in the org's name is no replacement pattern.
  return html.replace('</head>', () => `<meta name="${MEMBER_PAGE_META}" content="${escapeHtml(JSON.stringify(told))}" />\n</head>`);
}

export function webRoutes(registry: Registry): FastifyPluginAsync {
  return async (app) => {
    // Loaded with the API only (the CLI's commands import this file too, through the sign-in routes).
    const { default: fastifyStatic } = await import('@fastify/static');
    const dashboard = new BuiltPage(join(WEB_DIST, 'index.html'));
    const store = new BuiltPage(join(WEB_DIST, 'store', 'index.html'));
    const member = new BuiltPage(join(WEB_DIST, 'member', 'index.html'));
    // Always the newest page (its asset names change with each build); the assets themselves never change.
    const send = (page: BuiltPage, reply: FastifyReply, fill: (html: string) => string = (html) => html) => {
      const built = page.read();
      if (!built) throw unavailable('The dashboard is not built: run npm run build', 'dashboard_not_built');
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').header('content-security-policy', built.csp).send(fill(built.html));
    };
    const hidden = (operationId: string) => ({ schema: { hide: true, operationId } });

    app.get('/dashboard', hidden('webDashboard'), (_request, reply) => send(dashboard, reply));
    app.get('/dashboard/*', hidden('webDashboardPath'), (_request, reply) => send(dashboard, reply));
    app.get('/store/:org', hidden('webStore'), (_request, reply) => send(store, reply));
    app.get('/store/:org/login', hidden('webStoreLogin'), (_request, reply) => send(store, reply));
    for (const mod of registry.modules) {
      for (const page of mod.pages?.memberPages ?? []) {
        // The operationId names module and path apart: `getAgentsByOrgMe` is the API's /api/agents/:org/me.
        app.get(memberPageRoute(mod, page), hidden(`webMemberPage:${mod.name}/${page.path}`), (request, reply) => {
          const org = request.org!;
          if (!registry.isEnabled(org.modules, mod.name)) throw notFound(`The ${mod.name} module is off for this org`, 'module_off');
          return send(member, reply, (html) => memberShellHtml(html, mod, page, org));
        });
      }
    }
    // A file of a plugin that serves no pages is a 404, never the dashboard's page (a script must not load HTML);
    // the plugins' own folders (below) have longer prefixes, so they come first. A missing file in a served folder
    // is @fastify/static's 404.
    app.get(`${PLUGIN_PAGES_PREFIX}*`, hidden('webPluginFile'), async () => {
      throw notFound('No such file of a plugin\'s pages', 'not_found');
    });

    const assets = join(WEB_DIST, 'assets');
    if (existsSync(assets)) {
      // Hashed names: cached for a year.
      await app.register(fastifyStatic, { root: assets, prefix: '/dashboard/assets/', decorateReply: false, index: false, immutable: true, maxAge: '365d' });
    } else {
      app.log.warn('the dashboard is not built (core/web/dist is missing): run npm run build');
    }

    for (const mod of registry.modules) {
      const dir = pagesFolder(mod);
      if (!dir) continue;
      const problem = pagesBuildProblem(mod);
      if (problem) app.log.warn(`pages of module ${mod.name} are not served: ${problem} (build them: npm run build)`);
      if (!existsSync(dir)) continue;
      // Names a plugin chose (index.js): revalidated on every use, so a new version shows at once.
      await app.register(fastifyStatic, {
        root: dir, prefix: `${PLUGIN_PAGES_PREFIX}${mod.name}/`, decorateReply: false, index: false, cacheControl: false,
        setHeaders: (res) => res.setHeader('cache-control', 'no-cache'),
      });
    }
  };
}
