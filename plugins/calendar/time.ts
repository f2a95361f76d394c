// Wall-clock time in IANA time zones with nothing but Intl: validating a zone name, reading an instant's local
// date and time in a zone, and finding the instant of a local date and time (DST gaps move forward, overlaps take
// the earlier instant). Recurrences are expanded in local time (recurrence.ts), so "every Monday 18:00" stays
// 18:00 on both sides of a DST change.
import { badRequest } from '@quad/core';

export interface LocalTime { year: number; month: number; day: number; hour: number; minute: number; second: number }

const DAY_MS = 86_400_000;

// Formatters are costly to build and hold no org data: one per zone per process.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    if (formatters.size > 500) formatters.clear();
    formatters.set(zone, f);
  }
  return f;
}

/** The zone's canonical IANA name (`america/new_york` → `America/New_York`), or a 400 naming the field. */
export function checkZone(zone: string, field = 'body.time_zone'): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw badRequest(`${field}: not an IANA time zone name (for example Europe/Berlin or America/New_York)`, 'invalid_time_zone', { field });
  }
}

/** The local date and time of an instant in a zone (seconds precision). */
export function toLocal(ms: number, zone: string): LocalTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute!, second: parts.second! };
}

const asUtc = (t: LocalTime) => Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);

/** The zone's offset from UTC at an instant, in minutes (New York in winter: -300). */
export function offsetAt(ms: number, zone: string): number {
  return Math.round((asUtc(toLocal(ms, zone)) - Math.floor(ms / 1000) * 1000) / 60_000);
}

/** The instant of a local date and time in a zone. */
export function fromLocal(t: LocalTime, zone: string): number {
  const wall = asUtc(t);
  const first = wall - offsetAt(wall, zone) * 60_000;
  const second = wall - offsetAt(first, zone) * 60_000;
  // Equal unless the local time is in a DST gap or overlap: take the earlier candidate that reads back right,
  // else (a gap) the later one, which is the wall time moved forward by the gap.
  if (first === second) return first;
  const candidates = [first, second].sort((a, b) => a - b);
  return candidates.find((c) => asUtc(toLocal(c, zone)) === wall) ?? candidates[1]!;
}

/** Days from 1970-01-01 of a local date (for day arithmetic free of DST). */
export const dayNumber = (t: Pick<LocalTime, 'year' | 'month' | 'day'>) => Math.floor(Date.UTC(t.year, t.month - 1, t.day) / DAY_MS);

/** The local date `days` after `t` (time of day kept). */
export function addDays(t: LocalTime, days: number): LocalTime {
  const d = new Date(Date.UTC(t.year, t.month - 1, t.day + days));
  return { ...t, year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

export const midnight = (t: LocalTime): LocalTime => ({ ...t, hour: 0, minute: 0, second: 0 });

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
/** `YYYY-MM-DD` of a local date. */
export const dateText = (t: LocalTime) => `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}`;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
/** The pattern the routes' schemas give start_at and end_at: a date, or a date and time with an offset. */
export const INSTANT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$';

/**
 * An instant from the API: a date and time with an offset, or for all-day events also a bare date (read in
 * `zone`). Returns the local date (all-day) or the instant. 400 naming the field otherwise.
 */
export function parseInstant(text: string, field: string, allDay: boolean, zone: string): number {
  const bad = (why: string) => badRequest(`${field}: ${why}`, 'invalid_time', { field });
  const date = DATE.exec(text);
  if (date) {
    if (!allDay) throw bad('a date and time with an offset, for example 2026-12-01T18:00:00-05:00 (a bare date only for all-day events)');
    const t: LocalTime = { year: Number(date[1]), month: Number(date[2]), day: Number(date[3]), hour: 0, minute: 0, second: 0 };
    if (dateText(toLocal(Date.UTC(t.year, t.month - 1, t.day), 'UTC')) !== text) throw bad('not a calendar date');
    return fromLocal(t, zone);
  }
  const ms = DATE_TIME.test(text) ? Date.parse(text) : Number.NaN;
  const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  // Date.parse rolls 02-30 over into March: a date that does not read back is not one.
  if (!Number.isFinite(ms) || new Date(Date.UTC(y, m - 1, d)).getUTCDate() !== d) throw bad('a date and time with an offset (ISO 8601), for example 2026-12-01T18:00:00-05:00');
  if (ms < Date.UTC(1970, 0, 1) || ms >= Date.UTC(2200, 0, 1)) throw bad('between 1970 and 2199');
  // All-day: the date it falls on in the event's zone.
  return allDay ? fromLocal(midnight(toLocal(ms, zone)), zone) : Math.floor(ms / 1000) * 1000;
}
