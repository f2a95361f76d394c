// What the Uptime page's parts share: the records the uptime routes answer (README "Routes"), the routes' base path,
// the fields' bounds and defaults (fields.ts on the server), and how states, percentages and times are shown. No
// server code here: the bundle carries only what the page needs.
import { useCallback, type CSSProperties } from 'react';
import { ApiError, invalidateApi, useOrg } from '@quad/web/sdk';

export type State = 'up' | 'down' | 'pending' | 'paused';
export interface LastCheck { at: string; ok: boolean; status: number | null; latency_ms: number; reason: string | null; message: string | null }
export interface Check extends LastCheck { id: number }
export interface Monitor {
  id: number; name: string; url: string; interval_seconds: number; expected_status: number; timeout_ms: number;
  keyword: string | null; down_after: number; paused: boolean; state: State; state_changed_at: string | null;
  consecutive_failures: number; last_check: LastCheck | null; next_check_at: string | null;
  uptime_24h: number | null; uptime_30d: number | null; created_at: string; updated_at: string;
}
export interface Day { day: string; checks: number; up: number; uptime_pct: number | null; latency_ms: { min: number; avg: number; max: number } | null }

/** fields.ts BOUNDS. */
export const BOUNDS = {
  interval_seconds: { min: 60, max: 86_400, default: 300 },
  expected_status: { min: 100, max: 599, default: 200 },
  timeout_ms: { min: 1000, max: 30_000, default: 10_000 },
  down_after: { min: 1, max: 10, default: 2 },
};

/** The uptime routes of the current org. */
export function useUptimeBase(): string {
  return `/api/uptime/${useOrg().prefix}`;
}
export const monitorPath = (base: string, id: number) => `${base}/monitors/${id}`;

/** Read the monitors, their checks and days again, and the Overview's counts. */
export function useRefresh(): () => Promise<void> {
  const { prefix } = useOrg();
  return useCallback(async () => {
    await Promise.all([invalidateApi(`/api/uptime/${prefix}/`), invalidateApi(`/api/dashboard/${prefix}/overview`)]);
  }, [prefix]);
}

/** The field an API error names (`body.url` → `url`), or null. */
export function errorField(error: unknown): string | null {
  const field = error instanceof ApiError ? error.body?.field : undefined;
  return typeof field === 'string' ? field.replace(/^(body|params|querystring)\./, '') : null;
}

export const STATE_LABEL: Record<State, string> = { up: 'Up', down: 'Down', pending: 'Pending', paused: 'Paused' };
export const pct = (value: number | null) => (value === null ? '—' : `${value.toFixed(value === 100 ? 0 : 2)} %`);
export const when = (iso: string | null, none = '—') => (iso ? new Date(iso).toLocaleString() : none);
export const every = (seconds: number) => (seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`);

/** A check's outcome in words: "200 in 84 ms", or why it failed. */
export function outcome(c: LastCheck): string {
  if (c.ok) return `${c.status} in ${c.latency_ms} ms`;
  return c.message ?? c.reason ?? 'failed';
}

export const row: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'flex-start' };
export const actions: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 8, alignItems: 'center' };
export const ok: CSSProperties = { color: 'var(--ok)' };
export const bad: CSSProperties = { color: 'var(--danger)', whiteSpace: 'pre-wrap', wordBreak: 'break-word' };
