// The shell's own pages and paths, and the spec's old paths with where they open now. Module pages take any other
// one-segment path (the core refuses a module page on one of these: RESERVED_PAGE_PATHS in
// core/src/modules/pages.ts, kept in step by test/web/reserved-paths.test.ts).

export interface CorePage {
  /** '' is the dashboard's home. */
  path: string;
  title: string;
  icon: string;
  category: string;
  superadminOnly?: boolean;
}

/** The core's pages, always shown (Superadmin only to superadmins), in sidebar order. */
export const CORE_PAGES: readonly CorePage[] = [
  { path: '', title: 'Overview', icon: 'home', category: 'Org' },
  { path: 'explore', title: 'Explore', icon: 'compass', category: 'Org' },
  { path: 'activity', title: 'Activity', icon: 'activity', category: 'Org' },
  { path: 'tokens', title: 'Tokens', icon: 'key', category: 'Org' },
  { path: 'settings', title: 'Settings', icon: 'sliders', category: 'Org' },
  { path: 'superadmin', title: 'Superadmin', icon: 'shield', category: 'Admin', superadminOnly: true },
];

/** Paths of the shell that are not sidebar pages. */
export const SHELL_PATHS: readonly string[] = ['overview', 'auth', 'signin', 'plugins', 'assets'];

/** The spec's old paths (spec: "Dashboard client rules"), by first segment. */
const OLD_PATHS: Record<string, string> = {
  ci: '/activity?tab=ci',
  notifications: '/activity',
  modules: '/explore',
  integrations: '/explore?tab=integrations',
  apps: '/hosting',
  compute: '/pods',
  mcp: '/tokens',
  alerts: '/job-alerts',
  overview: '/',
};
/** Old Settings sections that are pages now. */
const OLD_SETTINGS_SECTIONS: Record<string, string> = { calendar: '/calendar', leetcode: '/leetcode', modules: '/explore' };

export const OLD_PATH_NAMES: readonly string[] = Object.keys(OLD_PATHS);

/** Where an old address opens now (a path of the dashboard), or null when it is not an old one. */
export function redirectOf(location: { pathname: string; search: string; hash: string }): string | null {
  const segments = location.pathname.split('/').filter(Boolean);
  if (segments.length !== 1) return null;
  const [first] = segments as [string];
  if (first in OLD_PATHS) return OLD_PATHS[first]!;
  if (first === 'hosting' && new URLSearchParams(location.search).get('tab') === 'pods') return '/pods';
  if (first === 'settings') return OLD_SETTINGS_SECTIONS[location.hash.replace(/^#/, '')] ?? null;
  return null;
}
