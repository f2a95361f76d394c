// What the Submodules tab's files share: the record the list route answers (README "The record"), the officer routes'
// base path, what a refused subscribe says, and how dates and counts are shown. No server code here: the bundle
// carries only what the tab needs.
import { ApiError, invalidateApi, useOrg } from '@quad/web/sdk';

export interface Query { name: string; title: string; description: string; index: boolean }
export interface Preset { key: string; title: string; description: string; kind: 'repo_jobs' | 'hackathons' }
export interface Reader { module: string; parts: string[]; loaded: boolean; enabled: boolean }
export interface Submodule {
  name: string; title: string; description: string;
  modules: Reader[];
  pages: { key: string; title: string; url: string }[];
  /** Passages of the shared pages; null without the knowledge module. */
  passages: number | null;
  last_crawl_at: string | null;
  queries: Query[];
  feeds: Preset[];
  links: { course_management: string | null; sign_in: string | null };
  subscribed: boolean; subscribed_at: string | null; subscribers: number;
}
export interface Catalog { submodules: Submodule[]; limit: { use: number; value: number | null } }

/** The officer routes of the current org: GET it for the list, PUT/DELETE `<it>/<name>/subscription`. */
export function useSubmodulesBase(): string {
  return `/api/dashboard/${useOrg().prefix}/submodules`;
}
export const subscriptionPath = (base: string, name: string) => `${base}/${encodeURIComponent(name)}/subscription`;

/** Read again what a subscription changes: the list, the feeds module's presets, the Overview. */
export function refreshAfterChange(prefix: string): Promise<void> {
  return Promise.all([
    invalidateApi(`/api/dashboard/${prefix}/submodules`), invalidateApi(`/api/feeds/${prefix}/presets`), invalidateApi(`/api/dashboard/${prefix}/overview`),
  ]).then(() => undefined);
}

/** The 409 of a full limit (`{ reason: 'limit_reached', limit, value, use }`), or null for any other error. */
export function limitReached(error: unknown): { value: number; use: number } | null {
  if (!(error instanceof ApiError) || error.status !== 409 || error.reason !== 'limit_reached') return null;
  return { value: Number(error.body?.value), use: Number(error.body?.use) };
}

/** Only http(s) addresses become links (the content is the deployment's, but an href never gets a `javascript:`). */
export const isWebUrl = (url: string | null): url is string => url !== null && /^https?:\/\//i.test(url);

export const when = (iso: string | null, none = '—') => (iso ? new Date(iso).toLocaleString() : none);
export const plural = (n: number, word: string, words = `${word}s`) => `${n} ${n === 1 ? word : words}`;
