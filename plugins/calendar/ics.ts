// The iCalendar feed's text (RFC 5545), written here rather than by a library so tests can check it with ical.js's
// parser: CRLF lines folded at 75 octets, TEXT escaped, a stable UID and a SEQUENCE per event, DTSTAMP. Timed
// events carry DTSTART/DTEND with TZID and a VTIMEZONE per zone used (derived from the runtime's IANA data), so
// calendar apps expand a recurring event in its own zone and keep its local time across DST; events in UTC use the
// UTC form. All-day events use DATE values (DTEND the day after the last day).
import { dateText, offsetAt, toLocal, type LocalTime } from './time.js';

export interface FeedEvent {
  uid: string;
  title: string;
  description: string;
  location: string;
  start: number;
  end: number;
  zone: string;
  allDay: boolean;
  recurrence: string | null;
  sequence: number;
  created: number;
  updated: number;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const localText = (t: LocalTime) => `${pad(t.year, 4)}${pad(t.month)}${pad(t.day)}T${pad(t.hour)}${pad(t.minute)}${pad(t.second)}`;
const utcText = (ms: number) => `${localText(toLocal(ms, 'UTC'))}Z`;
const dateValue = (ms: number, zone: string) => dateText(toLocal(ms, zone)).replace(/-/g, '');

/** TEXT escaping: backslash, semicolon, comma and line breaks. */
export function escapeText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r\n|\r|\n/g, '\\n');
}

/** Fold a content line at 75 octets (continuations start with a space), never inside a UTF-8 character. */
export function fold(line: string): string {
  const out: string[] = [];
  let current = '';
  let octets = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch);
    if (octets + size > 75) {
      out.push(current);
      current = ' ';
      octets = 1;
    }
    current += ch;
    octets += size;
  }
  out.push(current);
  return out.join('\r\n');
}

const offsetText = (minutes: number) => `${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60))}${pad(Math.abs(minutes) % 60)}`;

/**
 * A VTIMEZONE for `zone` covering the years [fromYear, toYear]: one sub-component per offset change found in the
 * runtime's zone data (weekly probes, then a minute search), after one that gives the offset at the range's start.
 */
export function vtimezone(zone: string, fromYear: number, toYear: number): string[] {
  const start = Date.UTC(fromYear, 0, 1);
  const stop = Date.UTC(toYear + 1, 0, 1);
  const first = offsetAt(start, zone);
  const lines = ['BEGIN:VTIMEZONE', `TZID:${zone}`,
    'BEGIN:STANDARD', `DTSTART:${localText(toLocal(start, zone))}`, `TZOFFSETFROM:${offsetText(first)}`, `TZOFFSETTO:${offsetText(first)}`, 'END:STANDARD'];
  const week = 7 * 86_400_000;
  let before = first;
  for (let t = start; t < stop; t += week) {
    const after = offsetAt(Math.min(t + week, stop), zone);
    if (after === before) continue;
    // The change is in (t, t + week]: find its minute.
    let lo = t;
    let hi = Math.min(t + week, stop);
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
      if (offsetAt(mid, zone) === before) lo = mid; else hi = mid;
    }
    const kind = after > before ? 'DAYLIGHT' : 'STANDARD';
    // DTSTART is the onset in the local time before the change.
    const onset = localText(toLocal(hi + before * 60_000, 'UTC'));
    lines.push(`BEGIN:${kind}`, `DTSTART:${onset}`, `TZOFFSETFROM:${offsetText(before)}`, `TZOFFSETTO:${offsetText(after)}`, `END:${kind}`);
    before = after;
  }
  lines.push('END:VTIMEZONE');
  return lines;
}

function eventLines(e: FeedEvent): string[] {
  const utc = e.zone === 'UTC';
  const when = (name: string, ms: number) => (e.allDay ? `${name};VALUE=DATE:${dateValue(ms, e.zone)}`
    : utc ? `${name}:${utcText(ms)}` : `${name};TZID=${e.zone}:${localText(toLocal(ms, e.zone))}`);
  return [
    'BEGIN:VEVENT',
    `UID:${e.uid}`,
    // The last change, not the time of the request: the feed's text (and its ETag) changes only with its events.
    `DTSTAMP:${utcText(e.updated)}`,
    `CREATED:${utcText(e.created)}`,
    `LAST-MODIFIED:${utcText(e.updated)}`,
    `SEQUENCE:${e.sequence}`,
    when('DTSTART', e.start),
    when('DTEND', e.end),
    ...(e.recurrence ? [`RRULE:${e.recurrence}`] : []),
    `SUMMARY:${escapeText(e.title)}`,
    ...(e.description ? [`DESCRIPTION:${escapeText(e.description)}`] : []),
    ...(e.location ? [`LOCATION:${escapeText(e.location)}`] : []),
    'END:VEVENT',
  ];
}

/** The whole feed: a VCALENDAR with a VTIMEZONE per zone of a timed event and a VEVENT per event. */
export function writeFeed(opts: { name: string; events: FeedEvent[]; now: number }): string {
  const zones = new Map<string, number>();
  for (const e of opts.events) {
    if (e.allDay || e.zone === 'UTC') continue;
    zones.set(e.zone, Math.min(zones.get(e.zone) ?? Infinity, e.start));
  }
  const thisYear = new Date(opts.now).getUTCFullYear();
  const lines = [
    'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Quad//Calendar//EN', 'CALSCALE:GREGORIAN', 'METHOD:PUBLISH',
    `X-WR-CALNAME:${escapeText(opts.name)}`, 'REFRESH-INTERVAL;VALUE=DURATION:PT1H', 'X-PUBLISHED-TTL:PT1H',
  ];
  // From the zone's earliest event (at most 10 years back) to 5 years ahead; later occurrences keep the last rule.
  for (const [zone, earliest] of [...zones].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(...vtimezone(zone, Math.max(new Date(earliest).getUTCFullYear(), thisYear - 10), thisYear + 5));
  }
  for (const e of opts.events) lines.push(...eventLines(e));
  lines.push('END:VCALENDAR');
  return `${lines.map(fold).join('\r\n')}\r\n`;
}
