// Dashboard pages that modules bring (manifest `pages`): where a module's bundle lives, the checks the registry runs
// on every module's pages together, what the dashboard is told about them (the Explore listing's `pages`), and
// where member pages open.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ActivityTabDecl, ExploreTabDecl, MemberPageDecl, Module, PageDecl } from './types.js';

/** Where the core serves a module's bundle folder (core/src/http/web.ts). */
export const PLUGIN_PAGES_PREFIX = '/dashboard/plugins/';

/**
 * Dashboard paths a module's page may not take: the shell's own pages and routes, and the old paths of the spec
 * that the shell redirects (core/web/src/shell/routes.ts; test/web/reserved-paths.test.ts keeps the two in step).
 */
export const RESERVED_PAGE_PATHS: ReadonlySet<string> = new Set([
  'overview', 'explore', 'tokens', 'activity', 'settings', 'superadmin', 'auth', 'signin', 'plugins', 'assets',
  'ci', 'notifications', 'modules', 'integrations', 'apps', 'compute', 'mcp', 'alerts',
]);

/**
 * Member pages open at /<module>/<org>/<path>: a module named after a top-level address the service serves itself
 * (the API, the dashboard, the API docs, health) would put its pages under it, and `<module>/<path>` may not be one
 * of the core's own member pages (core/src/http/web.ts).
 */
export const RESERVED_MEMBER_PAGE_ROOTS: ReadonlySet<string> = new Set(['api', 'dashboard', 'docs', 'health']);
export const CORE_MEMBER_PAGES: ReadonlySet<string> = new Set(['store/login']);

/** The Activity page's own tabs (core/web/src/pages/activity.tsx): a module's tab takes another id. */
export const CORE_ACTIVITY_TABS: ReadonlySet<string> = new Set(['notifications', 'errors', 'changes', 'ci', 'job-runs']);

/**
 * Explore's own tabs (core/web/src/pages/explore.tsx). `submodules` is not among them: the core shows a placeholder
 * there until a module that is on brings a tab of that id.
 */
export const CORE_EXPLORE_TABS: ReadonlySet<string> = new Set(['modules', 'integrations']);

/** The absolute folder of a module's page bundle (a folder URL, or a path from the working directory). */
export function pagesFolder(mod: Module): string | null {
  const bundle = mod.pages?.bundle;
  if (bundle === undefined) return null;
  return bundle instanceof URL ? fileURLToPath(bundle) : resolve(bundle);
}

/** The bundle's entry file name in its folder. */
export const pagesEntry = (mod: Module) => mod.pages?.entry ?? 'index.js';

/** Why a module's bundle cannot be served as it is (not built yet), or null. Not a boot error: the pages are built apart. */
export function pagesBuildProblem(mod: Module): string | null {
  const dir = pagesFolder(mod);
  if (!dir) return null;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return `the bundle folder ${dir} does not exist`;
  const entry = join(dir, pagesEntry(mod));
  if (!existsSync(entry)) return `the bundle has no entry ${entry}`;
  return null;
}

/**
 * The checks of `pages` beyond its shape (which the manifest schema checks): a folder that is a `file:` URL or a
 * path, something to show, and page paths that are not the shell's and not another module's. Answers
 * `[module, field, problem]` of the first problem, or null.
 */
export function pagesProblem(modules: readonly Module[]): [string, string, string] | null {
  const owners = new Map<string, string>();
  const tabOwners = new Map<string, string>();
  const exploreOwners = new Map<string, string>();
  for (const mod of modules) {
    if (!mod.pages) continue;
    const { bundle, list = [], overviewCard, activityTabs = [], exploreTabs = [], memberPages = [] } = mod.pages;
    if (!(bundle instanceof URL && bundle.protocol === 'file:') && typeof bundle !== 'string') {
      return [mod.name, 'pages.bundle', 'must be a folder URL (new URL(\'./web/dist/\', import.meta.url)) or a path'];
    }
    if (!list.length && !overviewCard && !activityTabs.length && !exploreTabs.length && !memberPages.length) {
      return [mod.name, 'pages', 'declares no page, no overviewCard, no activityTabs, no exploreTabs and no memberPages'];
    }
    const memberProblem = memberPagesProblem(mod.name, memberPages);
    if (memberProblem) return [mod.name, ...memberProblem];
    for (const [i, tab] of activityTabs.entries()) {
      if (CORE_ACTIVITY_TABS.has(tab.id)) return [mod.name, `pages.activityTabs[${i}].id`, `"${tab.id}" is a tab of Activity already; choose another`];
      const owner = tabOwners.get(tab.id);
      if (owner) return [mod.name, `pages.activityTabs[${i}].id`, `"${tab.id}" is an Activity tab of ${owner === mod.name ? 'this module' : `module "${owner}"`} already`];
      tabOwners.set(tab.id, mod.name);
    }
    for (const [i, tab] of exploreTabs.entries()) {
      if (CORE_EXPLORE_TABS.has(tab.id)) return [mod.name, `pages.exploreTabs[${i}].id`, `"${tab.id}" is a tab of Explore already; choose another`];
      const owner = exploreOwners.get(tab.id);
      if (owner) return [mod.name, `pages.exploreTabs[${i}].id`, `"${tab.id}" is an Explore tab of ${owner === mod.name ? 'this module' : `module "${owner}"`} already`];
      exploreOwners.set(tab.id, mod.name);
    }
    for (const [i, page] of list.entries()) {
      if (RESERVED_PAGE_PATHS.has(page.path)) return [mod.name, `pages.list[${i}].path`, `"${page.path}" is the dashboard's own path; choose another`];
      const owner = owners.get(page.path);
      if (owner) return [mod.name, `pages.list[${i}].path`, `"${page.path}" is a page of ${owner === mod.name ? 'this module' : `module "${owner}"`} already`];
      owners.set(page.path, mod.name);
    }
  }
  return null;
}

/** `[field, problem]` of a module's first member page that cannot be served at its address, or null. */
function memberPagesProblem(module: string, memberPages: readonly MemberPageDecl[]): [string, string] | null {
  if (memberPages.length && RESERVED_MEMBER_PAGE_ROOTS.has(module)) {
    return ['pages.memberPages', `would open under /${module}/, an address of the service itself; a module of this name has no member pages`];
  }
  const seen = new Set<string>();
  for (const [i, page] of memberPages.entries()) {
    if (CORE_MEMBER_PAGES.has(`${module}/${page.path}`)) return [`pages.memberPages[${i}].path`, `/${module}/<org>/${page.path} is the core's own page; choose another`];
    if (seen.has(page.path)) return [`pages.memberPages[${i}].path`, `"${page.path}" is a member page of this module already`];
    seen.add(page.path);
  }
  return null;
}

/** The address of a member page (Fastify's form, `:org` for the org's prefix or id). */
export const memberPageRoute = (mod: Module, page: MemberPageDecl) => `/${mod.name}/:org/${page.path}`;

/** The entry's URL on this service (the dashboard and the member shell import it). */
export const pagesEntryUrl = (mod: Module) => `${PLUGIN_PAGES_PREFIX}${mod.name}/${pagesEntry(mod)}`;

export interface PageView { path: string; title: string; category: string; icon: string | null; component: string }

/** What the dashboard needs to show a module's pages: the entry's URL (on this service) and the pages. */
export interface PagesView {
  entry: string; list: PageView[]; overview_card: string | null; activity_tabs: ActivityTabDecl[]; explore_tabs: ExploreTabDecl[];
}

export function pagesView(mod: Module): PagesView | null {
  if (!mod.pages) return null;
  const page = (p: PageDecl): PageView => ({ path: p.path, title: p.title, category: p.category ?? mod.category, icon: p.icon ?? null, component: p.component });
  return {
    entry: pagesEntryUrl(mod),
    list: (mod.pages.list ?? []).map(page),
    overview_card: mod.pages.overviewCard ?? null,
    activity_tabs: (mod.pages.activityTabs ?? []).map(({ id, label, component }) => ({ id, label, component })),
    explore_tabs: (mod.pages.exploreTabs ?? []).map(({ id, label, component }) => ({ id, label, component })),
  };
}
