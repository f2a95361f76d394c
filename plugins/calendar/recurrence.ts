// Recurrence rules: the module's RRULE subset (FREQ DAILY/WEEKLY/MONTHLY/YEARLY, INTERVAL, COUNT or UNTIL, BYDAY,
// BYMONTHDAY), checked and normalized here, and expanded into occurrences with ical.js's iterator in the event's
// local time (time.ts converts each to an instant), so a weekly 18:00 stays 18:00 across DST. Every expansion is
// bounded: COUNT ≤ 1000, a rule without COUNT is fast-forwarded to the window (DAILY, WEEKLY), and no expansion
// takes more than MAX_STEPS steps of the iterator.
import ICAL from 'ical.js';
import { badRequest } from '@quad/core';
import { addDays, dayNumber, fromLocal, midnight, toLocal, type LocalTime } from './time.js';

export const MAX_COUNT = 1000;
/** Iterator steps one event's expansion may take in one listing (a safety net over the rules above). */
export const MAX_STEPS = 5000;

type Freq = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
export interface Rule {
  freq: Freq;
  interval: number;
  count: number | null;
  /** The last instant an occurrence may start at (UNTIL, inclusive). */
  until: number | null;
  byDay: string[];
  byMonthDay: number[];
}

const FREQS = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];
const FIELD = 'body.recurrence';

const refuse = (why: string) => badRequest(`${FIELD}: ${why}`, 'invalid_recurrence', { field: FIELD });

function integer(value: string, name: string, min: number, max: number): number {
  if (!/^[+-]?\d{1,4}$/.test(value)) throw refuse(`${name} must be a whole number`);
  const n = Number(value);
  if (n < min || n > max || n === 0) throw refuse(`${name} must be between ${min} and ${max}${min < 0 ? ', not 0' : ''}`);
  return n;
}

/** UNTIL as an inclusive last start: a UTC date-time, or a date (its end, in the event's zone). */
function parseUntil(value: string, zone: string, allDay: boolean): number {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/.exec(value);
  if (!m) throw refuse('UNTIL must be a date (20261231) or a UTC date and time (20261231T235959Z)');
  const [y, mo, d, h, mi, s, z] = [Number(m[1]), Number(m[2]), Number(m[3]), m[4], m[5], m[6], m[7]];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || new Date(Date.UTC(y, mo - 1, d)).getUTCDate() !== d) throw refuse('UNTIL is not a calendar date');
  if (h === undefined) {
    // A date: occurrences starting on that day in the event's zone are in.
    const dayAfter = addDays({ year: y, month: mo, day: d, hour: 0, minute: 0, second: 0 }, 1);
    return fromLocal(dayAfter, zone) - 1000;
  }
  const local: LocalTime = { year: y, month: mo, day: d, hour: Number(h), minute: Number(mi), second: Number(s) };
  if (local.hour > 23 || local.minute > 59 || local.second > 59) throw refuse('UNTIL has no such time of day');
  const at = z ? Date.UTC(y, mo - 1, d, local.hour, local.minute, local.second) : fromLocal(local, zone);
  // All-day events count whole days: the day the instant falls on.
  return allDay ? fromLocal(addDays(midnight(toLocal(at, zone)), 1), zone) - 1000 : at;
}

/**
 * Check a rule text of the subset and answer it parsed and normalized (`RRULE:` prefix dropped, parts in a fixed
 * order, UNTIL as a UTC date-time for timed events and a date for all-day ones, as RFC 5545 wants with TZID). 400
 * `invalid_recurrence` naming the part otherwise.
 */
export function parseRule(text: string, opts: { start: number; zone: string; allDay: boolean }): { rule: Rule; text: string } {
  const parts = new Map<string, string>();
  for (const part of text.trim().replace(/^RRULE:/i, '').split(';')) {
    const m = /^([A-Za-z]+)=([^;=]+)$/.exec(part.trim());
    if (!m) throw refuse(`"${part.slice(0, 40)}" is not a NAME=VALUE part`);
    const name = m[1]!.toUpperCase();
    if (parts.has(name)) throw refuse(`${name} is given twice`);
    parts.set(name, m[2]!.trim().toUpperCase());
  }
  for (const name of parts.keys()) {
    if (!['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYDAY', 'BYMONTHDAY'].includes(name)) {
      throw refuse(`${name} is not supported (FREQ, INTERVAL, COUNT, UNTIL, BYDAY and BYMONTHDAY are)`);
    }
  }
  const freq = parts.get('FREQ') as Freq | undefined;
  if (!freq || !FREQS.includes(freq)) throw refuse('FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY');
  if (parts.has('COUNT') && parts.has('UNTIL')) throw refuse('COUNT and UNTIL cannot both be given');
  const interval = parts.has('INTERVAL') ? integer(parts.get('INTERVAL')!, 'INTERVAL', 1, 1000) : 1;
  const count = parts.has('COUNT') ? integer(parts.get('COUNT')!, 'COUNT', 1, MAX_COUNT) : null;
  const until = parts.has('UNTIL') ? parseUntil(parts.get('UNTIL')!, opts.zone, opts.allDay) : null;
  if (until !== null && until < opts.start) throw refuse('UNTIL is before the event starts');

  const byDay = parts.has('BYDAY') ? parts.get('BYDAY')!.split(',') : [];
  // Ordinals ("2MO": the second Monday) only where they mean something; DAILY takes no BY parts, so an interval
  // can never step past every matching day (INTERVAL=7;BYDAY=MO from a Tuesday would never end).
  const maxOrdinal = freq === 'MONTHLY' ? 5 : freq === 'YEARLY' ? 53 : 0;
  if (byDay.length && freq === 'DAILY') throw refuse('BYDAY is not supported with FREQ=DAILY (use FREQ=WEEKLY;BYDAY=…)');
  for (const day of byDay) {
    const m = /^([+-]?\d{1,2})?(SU|MO|TU|WE|TH|FR|SA)$/.exec(day);
    if (!m) throw refuse(`BYDAY "${day.slice(0, 10)}" is not a weekday (MO, TU, …, optionally with an ordinal like 2MO or -1FR)`);
    if (m[1] !== undefined) {
      if (maxOrdinal === 0) throw refuse(`BYDAY ordinals (${day}) need FREQ=MONTHLY or YEARLY`);
      integer(m[1], 'a BYDAY ordinal', -maxOrdinal, maxOrdinal);
    }
  }
  const byMonthDay = parts.has('BYMONTHDAY') ? parts.get('BYMONTHDAY')!.split(',').map((d) => integer(d, 'BYMONTHDAY', -31, 31)) : [];
  if (byMonthDay.length && (freq === 'DAILY' || freq === 'WEEKLY')) throw refuse('BYMONTHDAY needs FREQ=MONTHLY or YEARLY');
  if (new Set(byDay).size !== byDay.length || new Set(byMonthDay).size !== byMonthDay.length) throw refuse('a BYDAY or BYMONTHDAY value repeats');

  const rule: Rule = { freq, interval, count, until, byDay, byMonthDay };
  return { rule, text: ruleText(rule, opts.zone, opts.allDay) };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The rule as RFC 5545 text (UNTIL: UTC for timed events, the local date for all-day ones). */
export function ruleText(rule: Rule, zone: string, allDay: boolean): string {
  const parts = [`FREQ=${rule.freq}`];
  if (rule.interval > 1) parts.push(`INTERVAL=${rule.interval}`);
  if (rule.byDay.length) parts.push(`BYDAY=${rule.byDay.join(',')}`);
  if (rule.byMonthDay.length) parts.push(`BYMONTHDAY=${rule.byMonthDay.join(',')}`);
  if (rule.count !== null) parts.push(`COUNT=${rule.count}`);
  if (rule.until !== null) {
    const d = new Date(rule.until);
    if (allDay) {
      const t = toLocal(rule.until, zone);
      parts.push(`UNTIL=${pad(t.year, 4)}${pad(t.month)}${pad(t.day)}`);
    } else {
      parts.push(`UNTIL=${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`);
    }
  }
  return parts.join(';');
}

export interface EventTimes { start: number; end: number; zone: string; allDay: boolean; rule: Rule | null }
export interface Occurrence { start: number; end: number }

/** How long each occurrence lasts: whole local days for all-day events (DST-proof), else milliseconds. */
function lengthOf(e: EventTimes): { days: number } | { ms: number } {
  if (!e.allDay) return { ms: e.end - e.start };
  return { days: dayNumber(toLocal(e.end, e.zone)) - dayNumber(toLocal(e.start, e.zone)) };
}

function endOf(start: LocalTime, startMs: number, length: { days: number } | { ms: number }, zone: string): number {
  return 'days' in length ? fromLocal(addDays(midnight(start), length.days), zone) : startMs + length.ms;
}

/**
 * The occurrences that overlap [from, to), in order, at most `cap` (then `truncated`). A rule without COUNT starts
 * near the window (DAILY and WEEKLY step whole intervals ahead) so an old series costs no more than a new one.
 */
export function occurrences(e: EventTimes, from: number, to: number, cap: number): { list: Occurrence[]; truncated: boolean } {
  if (!e.rule) return { list: e.start < to && e.end > from ? [{ start: e.start, end: e.end }] : [], truncated: false };
  const rule = e.rule;
  const length = lengthOf(e);
  let local = toLocal(e.start, e.zone);
  let skipFirstUnlessMatching = false;
  if (rule.count === null && (rule.freq === 'DAILY' || rule.freq === 'WEEKLY')) {
    const step = rule.interval * (rule.freq === 'WEEKLY' ? 7 : 1);
    const lengthDays = 'days' in length ? length.days : Math.ceil(length.ms / 86_400_000);
    const behind = dayNumber(toLocal(from, e.zone)) - dayNumber(local) - lengthDays - 1;
    const steps = Math.floor(behind / step);
    if (steps > 0) {
      local = addDays(local, steps * step);
      // DTSTART is an occurrence even off its BYDAY; a moved start is one only when it matches.
      skipFirstUnlessMatching = rule.byDay.length > 0;
    }
  }
  const recur = ICAL.Recur.fromString(ruleText({ ...rule, until: null }, e.zone, e.allDay));
  const iterator = recur.iterator(ICAL.Time.fromData({ ...local, isDate: e.allDay }));
  const list: Occurrence[] = [];
  for (let steps = 0; steps < MAX_STEPS; steps++) {
    const next = iterator.next();
    if (!next) break;
    const t: LocalTime = { year: next.year, month: next.month, day: next.day, hour: e.allDay ? 0 : next.hour, minute: e.allDay ? 0 : next.minute, second: e.allDay ? 0 : next.second };
    if (steps === 0 && skipFirstUnlessMatching && !rule.byDay.includes(WEEKDAYS[new Date(Date.UTC(t.year, t.month - 1, t.day)).getUTCDay()]!)) continue;
    const start = fromLocal(t, e.zone);
    if (start >= to || (rule.until !== null && start > rule.until)) break;
    const end = endOf(t, start, length, e.zone);
    if (end > from) {
      if (list.length === cap) return { list, truncated: true };
      list.push({ start, end });
    }
  }
  return { list, truncated: false };
}

/** When the series' last occurrence ends: the bound listings filter on (Infinity for a rule without end). */
export function seriesEnd(e: EventTimes): number {
  const rule = e.rule;
  if (!rule) return e.end;
  if (rule.until !== null) {
    const length = lengthOf(e);
    return rule.until + ('days' in length ? (length.days + 1) * 86_400_000 : length.ms);
  }
  if (rule.count === null) return Infinity;
  const all = occurrences(e, e.start, Date.UTC(2300, 0, 1), MAX_COUNT);
  return all.list.length ? all.list[all.list.length - 1]!.end : e.end;
}
