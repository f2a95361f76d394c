// What the Calendar page's parts share: the records the calendar routes answer (README "Routes"), the routes' base
// path, and wall-clock conversions in a chosen IANA zone (the form edits local date and time; the API takes
// ISO 8601 with an offset). No server code here: the bundle carries only what the page needs.
import { useCallback } from 'react';
import { ApiError, invalidateApi, useOrg } from '@quad/web/sdk';

export interface CalendarEvent {
  id: number; uid: string; source: 'quad' | 'discord'; read_only: boolean; title: string; description: string; location: string;
  start_at: string; end_at: string; time_zone: string; all_day: boolean; recurrence: string | null;
  dates: { first: string; last: string } | null; public: boolean; sequence: number; created_at: string; updated_at: string;
}
export interface Occurrence { uid: string; start_at: string; end_at: string }
export interface Listing { from: string; to: string; truncated: boolean; events: CalendarEvent[]; occurrences: Occurrence[] }
export interface FeedStatus { exists: boolean; created_at: string | null }
export interface Settings { discord_sync: boolean; discord_bound: boolean; last_sync: { at: string; error: string | null; changes: number | null } | null }

export function useCalendarBase(): string {
  return `/api/calendar/${useOrg().prefix}`;
}

/** Read the calendar's answers again after a change. */
export function useRefresh(): () => Promise<void> {
  const base = useCalendarBase();
  return useCallback(() => invalidateApi(`${base}/`), [base]);
}

/** The browser's own zone (the form's default). */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** Every zone the browser knows, the given ones first if it lacks them. */
export function zoneNames(...keep: string[]): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set([...keep, 'UTC', ...known])].sort((a, b) => (a === 'UTC' ? -1 : b === 'UTC' ? 1 : a.localeCompare(b)));
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DDTHH:mm` of an instant in a zone (a datetime-local input's value). */
export function localValue(iso: string, zone: string): string {
  const parts: Record<string, string> = {};
  const f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
  for (const p of f.formatToParts(new Date(iso))) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day}T${pad(Number(parts.hour) % 24)}:${parts.minute}`;
}

/** The zone's offset at an instant, `+01:00`. */
function offsetText(ms: number, zone: string): string {
  const local = localValue(new Date(ms).toISOString(), zone);
  const minutes = Math.round((Date.parse(`${local}:00Z`) - Math.floor(ms / 60_000) * 60_000) / 60_000);
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
}

/** ISO 8601 with the zone's offset for a datetime-local value read in that zone. */
export function zonedIso(local: string, zone: string): string {
  const guess = Date.parse(`${local}:00Z`);
  const first = offsetText(guess, zone);
  const at = Date.parse(`${local}:00${first}`);
  return `${local}:00${offsetText(at, zone)}`;
}

/** The day after a `YYYY-MM-DD` date (all-day events end there). */
export function nextDay(date: string, days = 1): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** When an occurrence is, read in its event's zone. */
export function whenText(event: CalendarEvent, o: { start_at: string; end_at: string }): string {
  if (event.all_day) {
    const first = localValue(o.start_at, event.time_zone).slice(0, 10);
    const last = localValue(new Date(Date.parse(o.end_at) - 43_200_000).toISOString(), event.time_zone).slice(0, 10);
    return first === last ? `${first} (all day)` : `${first} – ${last} (all day)`;
  }
  const f = new Intl.DateTimeFormat(undefined, { timeZone: event.time_zone, dateStyle: 'medium', timeStyle: 'short' });
  const t = new Intl.DateTimeFormat(undefined, { timeZone: event.time_zone, timeStyle: 'short' });
  const sameDay = localValue(o.start_at, event.time_zone).slice(0, 10) === localValue(o.end_at, event.time_zone).slice(0, 10);
  return `${f.format(new Date(o.start_at))} – ${sameDay ? t.format(new Date(o.end_at)) : f.format(new Date(o.end_at))} (${event.time_zone})`;
}

/** The repeat presets of the form and the RRULE each writes. */
export const PRESETS = [
  { id: 'none', label: 'Does not repeat', rule: null },
  { id: 'daily', label: 'Every day', rule: 'FREQ=DAILY' },
  { id: 'weekly', label: 'Every week', rule: 'FREQ=WEEKLY' },
  { id: 'monthly', label: 'Every month', rule: 'FREQ=MONTHLY' },
] as const;
export type PresetId = (typeof PRESETS)[number]['id'] | 'custom';

/** The preset a stored rule matches (an optional COUNT kept apart), else custom. */
export function presetOf(rule: string | null): { preset: PresetId; count: string } {
  if (!rule) return { preset: 'none', count: '' };
  const m = /^(FREQ=(?:DAILY|WEEKLY|MONTHLY))(?:;COUNT=(\d+))?$/.exec(rule);
  const preset = m && PRESETS.find((p) => p.rule === m[1]);
  return preset ? { preset: preset.id, count: m[2] ?? '' } : { preset: 'custom', count: '' };
}

/** The field an API error names (`body.start_at` → `start_at`), or null. */
export function errorField(error: unknown): string | null {
  const field = error instanceof ApiError ? error.body?.field : undefined;
  return typeof field === 'string' ? field.replace(/^(body|querystring)\./, '') : null;
}
