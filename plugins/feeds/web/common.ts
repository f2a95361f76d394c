// What the Job alerts and Hackathons pages share: the records the feed routes answer (README "Routes"), the routes'
// base path, each kind's page and config fields with the defaults the server fills in (README "Saving a feed"), and
// how dates and an API error's field are shown. No server code here: the bundle carries only what the pages need.
import { useCallback, type CSSProperties } from 'react';
import { ApiError, invalidateApi, useOrg } from '@quad/web/sdk';

export type Kind = 'repo_jobs' | 'hackathons';

export interface Run {
  at: string; duration_ms: number; found: number; new: number; posted: number; error: string | null; note: string | null; trigger: string;
}
export interface Feed {
  key: string; kind: Kind; every_hours: number; enabled: boolean; config: Record<string, unknown>; webhook_set: boolean;
  schedule: { every_hours: number; next_run_at: string | null }; first_run_done: boolean; last_run: Run | null;
  last_error: string | null; posts: number; created_at: string; updated_at: string;
}
export interface HistoryRun extends Run { id: number }
export interface Item { key: string; status: 'recorded' | 'new' | 'posted'; title: string; url: string; seen_at: string; posted_at: string | null }
export interface History { key: string; runs: HistoryRun[]; items: Item[] }
export interface Preset { module: string; key: string; title: string; description: string; kind: Kind; config: Record<string, unknown>; added: boolean }

/** The feed routes of the current org. */
export function useFeedsBase(): string {
  return `/api/feeds/${useOrg().prefix}`;
}
export const feedPath = (base: string, key: string) => `${base}/feeds/${encodeURIComponent(key)}`;

/** Read the feeds, their histories and the presets again, and the Overview's counts. */
export function useRefresh(): () => Promise<void> {
  const { prefix } = useOrg();
  return useCallback(async () => {
    await Promise.all([invalidateApi(`/api/feeds/${prefix}/`), invalidateApi(`/api/dashboard/${prefix}/overview`)]);
  }, [prefix]);
}

/** Hours between runs (feed-config.ts EVERY_HOURS). */
export const EVERY_HOURS = { min: 1, max: 168, default: 3 };

type Value = string | boolean | string[];
export interface ConfigField {
  name: string; label: string; type: 'text' | 'number' | 'flag' | 'sources'; default: Value;
  hint?: string; required?: boolean; placeholder?: string; min?: number; max?: number;
}

/** The hackathon listings (hackathons/sources.ts). */
export const SOURCES: [id: string, service: string][] = [['listing_a', 'Hack Club Hackathons'], ['listing_b', 'Euro-Hackathons'], ['listing_c', 'Hackalist']];

/** Each kind's page (the manifest's pages) and config fields, defaults as feed-config.ts fills them in. */
export const KINDS: Record<Kind, { title: string; noun: string; intro: string; fields: ConfigField[] }> = {
  repo_jobs: {
    title: 'Job alerts',
    noun: 'job alert feed',
    intro: 'Post new roles from a repository\'s job table (a README in the style of the well-known internship and new-grad lists) to a Discord channel.',
    fields: [
      { name: 'repo', label: 'Repository', type: 'text', default: '', required: true, placeholder: 'owner/name', hint: '<owner>/<name> on GitHub' },
      { name: 'branch', label: 'Branch', type: 'text', default: 'main' },
      { name: 'path', label: 'File', type: 'text', default: 'README.md', hint: 'The Markdown file with the job table' },
      { name: 'label', label: 'Label', type: 'text', default: 'Job', hint: 'The word in each post\'s title: "New Job: Company — Role"' },
      { name: 'skip_closed', label: 'Leave out closed roles', type: 'flag', default: true },
      { name: 'max_age_days', label: 'Posted within (days)', type: 'number', default: '2', min: 0, max: 3650, hint: 'Rows posted earlier are left out; 0 turns the check off' },
    ],
  },
  hackathons: {
    title: 'Hackathons',
    noun: 'hackathon feed',
    intro: 'Post upcoming hackathons from public listings to a Discord channel.',
    fields: [
      { name: 'sources', label: 'Listings', type: 'sources', default: SOURCES.map(([id]) => id) },
      { name: 'min_days_ahead', label: 'Starting in at least (days)', type: 'number', default: '0', min: 0, max: 3650, hint: 'Events that start sooner are left out' },
      { name: 'max_days_ahead', label: 'Starting in at most (days)', type: 'number', default: '90', min: 0, max: 3650, hint: 'Events that start later are left out' },
    ],
  },
};

export type Draft = Record<string, Value>;

/** The form's values of a config (the defaults for a new feed). */
export function draftOf(kind: Kind, config: Record<string, unknown> = {}): Draft {
  return Object.fromEntries(KINDS[kind].fields.map((f) => {
    const value = config[f.name] ?? f.default;
    return [f.name, typeof value === 'number' ? String(value) : value as Value];
  }));
}

/** The config to send: numbers as numbers; an empty text or number left out, so the server fills in its default. */
export function configOf(kind: Kind, draft: Draft): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const f of KINDS[kind].fields) {
    const value = draft[f.name];
    if (typeof value === 'string') {
      if (value.trim() !== '') config[f.name] = f.type === 'number' ? Number(value) : value.trim();
    } else {
      config[f.name] = value;
    }
  }
  return config;
}

/** The field an API error names (`body.config.repo` → `repo`, `body.webhook_url` → `webhook_url`), or null. */
export function errorField(error: unknown): string | null {
  const field = error instanceof ApiError ? error.body?.field : undefined;
  return typeof field === 'string' ? field.replace(/^(body\.config|body|params)\./, '') : null;
}

export const when = (iso: string | null, none = '—') => (iso ? new Date(iso).toLocaleString() : none);
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const row: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'flex-start' };
export const actions: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 8, alignItems: 'center' };
export const ok: CSSProperties = { color: 'var(--ok)' };
export const bad: CSSProperties = { color: 'var(--danger)', whiteSpace: 'pre-wrap', wordBreak: 'break-word' };
