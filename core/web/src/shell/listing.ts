// The Explore listing (GET /api/dashboard/<org>/modules) as the shell reads it: every module with its switch and its
// pages, and the sidebar built from it.
import { CORE_PAGES } from './routes.js';

export interface PageView { path: string; title: string; category: string; icon: string | null; component: string }
export interface ActivityTabView { id: string; label: string; component: string }
export interface ExploreTabView { id: string; label: string; component: string }
export interface PagesView {
  entry: string; list: PageView[]; overview_card: string | null; activity_tabs: ActivityTabView[]; explore_tabs: ExploreTabView[];
}
export interface Need { key: string; label: string; kind: string; optional: boolean; connected: boolean }
export interface ModuleView {
  name: string; title: string; description: string; category: string;
  switchable: boolean; enabled: boolean; ready: boolean; needs: Need[];
  submodules: { name: string; title: string }[];
  pages: PagesView | null;
}
export interface IncludedModule { name: string; title: string; description: string; category: string; pages: PagesView | null }
export interface Listing { modules: ModuleView[]; categories: string[]; included: IncludedModule[] }

export const listingPath = (org: string) => `/api/dashboard/${org}/modules`;

/** A module page found by its path: the page, its module, and whether the module is on (core modules always are). */
export interface FoundPage { page: PageView; entry: string; module: { name: string; title: string }; enabled: boolean }

export function findPage(listing: Listing, path: string): FoundPage | null {
  for (const mod of [...listing.included.map((m) => ({ ...m, enabled: true })), ...listing.modules]) {
    const page = mod.pages?.list.find((p) => p.path === path);
    if (page) return { page, entry: mod.pages!.entry, module: { name: mod.name, title: mod.title }, enabled: mod.enabled };
  }
  return null;
}

/** A tab a module brings to a core page (Activity, Explore): its bundle's entry and export, and the module's title. */
export interface ModuleTab { id: string; label: string; entry: string; component: string; module: string }

/** The tabs of one kind (`activity_tabs`, `explore_tabs`) of the modules that are on (core modules always are), in the listing's order. */
export function moduleTabs(listing: Listing | undefined, kind: 'activity_tabs' | 'explore_tabs'): ModuleTab[] {
  if (!listing) return [];
  return [...listing.included.map((m) => ({ ...m, enabled: true })), ...listing.modules]
    .filter((m) => m.enabled && m.pages)
    .flatMap((m) => (m.pages![kind] ?? []).map(({ id, label, component }) => ({ id, label, component, entry: m.pages!.entry, module: m.title })));
}

export interface NavItem { to: string; title: string; icon: string | null }
export interface NavGroup { category: string; items: NavItem[] }

/** The sidebar: the core's pages, then the pages of the modules that are on, grouped by category. */
export function navGroups(listing: Listing | undefined, superadmin: boolean): NavGroup[] {
  const groups = new Map<string, NavItem[]>();
  const add = (category: string, item: NavItem) => groups.set(category, [...(groups.get(category) ?? []), item]);
  const core = CORE_PAGES.filter((p) => !p.superadminOnly);
  for (const p of core) add(p.category, { to: `/${p.path}`, title: p.title, icon: p.icon });
  const modules = listing ? [...listing.included.map((m) => ({ ...m, enabled: true })), ...listing.modules] : [];
  const pages = modules.filter((m) => m.enabled).flatMap((m) => m.pages?.list ?? []);
  for (const category of [...new Set(pages.map((p) => p.category))].sort()) {
    for (const p of pages.filter((page) => page.category === category)) add(category, { to: `/${p.path}`, title: p.title, icon: p.icon });
  }
  if (superadmin) for (const p of CORE_PAGES.filter((page) => page.superadminOnly)) add(p.category, { to: `/${p.path}`, title: p.title, icon: p.icon });
  return [...groups].map(([category, items]) => ({ category, items }));
}
