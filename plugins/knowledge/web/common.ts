// What the Knowledge page's tabs share: the records the officer routes answer (README "Officer routes"), the routes'
// base path, and how dates, counts and an API error's field are shown.
import type { CSSProperties } from 'react';
import { ApiError, useOrg } from '@quad/web/sdk';

/** A crawl record (GET /crawls, PUT /crawls/<key>). */
export interface Crawl {
  key: string; url: string; category: string; title: string; public: boolean; fetch_every_hours: number; enabled: boolean;
  next_at: string | null; last_attempt_at: string | null; last_success_at: string | null; last_error: string | null;
}
/** A row of the run log (GET /runs): one crawl or one uploaded file. */
export interface Run {
  id: number; source_key: string; kind: 'crawl' | 'upload'; started_at: string; duration_ms: number;
  changed: boolean; passages: number; error: string | null;
}
export interface Source {
  key: string; title: string; url: string; category: string; public: boolean; updated_at: string;
  origin: 'api' | 'crawl' | 'upload';
  current_version: { id: number; embedding_model: string | null; chunks: number; created_at: string } | null;
  crawl: Crawl | null;
}
export interface SourceList { sources: Source[]; may_publish: boolean }

/** The officer routes of the current org. */
export function useKnowledgeBase(): string {
  return `/api/dashboard/${useOrg().prefix}/knowledge`;
}

/** A key in a path: each segment encoded (a key holds `/`), so a bad key reaches the server whole and is refused there. */
export const keyPath = (key: string) => key.split('/').map(encodeURIComponent).join('/');

/** The search modes (spec "Org knowledge settings"). */
export const MODES = ['hybrid', 'text', 'vector'];

export const when = (iso: string | null, none = '—') => (iso ? new Date(iso).toLocaleString() : none);
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The field an API error names (`body.url` → `url`, `params.key` → `key`), or null. */
export function errorField(error: unknown): string | null {
  const field = error instanceof ApiError ? error.body?.field : undefined;
  return typeof field === 'string' ? field.replace(/^(body|params)\./, '') : null;
}

export const row: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'flex-start' };
export const ok: CSSProperties = { color: 'var(--ok)' };
export const bad: CSSProperties = { color: 'var(--danger)', whiteSpace: 'pre-wrap', wordBreak: 'break-word' };
export const actions: CSSProperties = { display: 'flex', gap: 8 };
