// Calendar events: check a body (zone, times, length, recurrence), create, change, delete, read, and list a window
// with occurrences expanded. Statements go through the org-bound handle (README "Org isolation") and each names the
// org (db.inOrg()). Each write bumps SEQUENCE, keeps the series' end for the window index, and emits
// calendar.event_created / _changed / _deleted in its transaction.
// Events copied from Discord (source discord) are the sync's: officers and tools get 409 synced_event.
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound, sql, type CoreServices, type OrgDb } from '@quad/core';
import { occurrences, parseRule, seriesEnd, type Rule } from './recurrence.js';
import { checkZone, dateText, parseInstant, toLocal } from './time.js';

export const MAX_LENGTH_MS = 14 * 86_400_000;
/** Listings: the longest window, and the most events and occurrences one answer holds (then `truncated`). */
export const WINDOW_MAX_DAYS = 366;
export const WINDOW_DEFAULT_DAYS = 60;
export const LIST_CAP = 500;

export interface EventRow {
  id: number; organization_id: number; uid: string; source: 'quad' | 'discord'; discord_event_id: string | null;
  title: string; description: string; location: string; start_at: Date; end_at: Date; time_zone: string; all_day: boolean;
  recurrence: string | null; public: boolean; sequence: number; created_at: Date; updated_at: Date;
}

export interface EventBody {
  title?: string; description?: string; location?: string; start_at?: string; end_at?: string; time_zone?: string;
  all_day?: boolean; recurrence?: string | null; public?: boolean;
}

/** A checked event, ready to store. */
export interface CheckedEvent {
  title: string; description: string; location: string; start: number; end: number; zone: string; allDay: boolean;
  rule: Rule | null; recurrence: string | null; isPublic: boolean; seriesEnd: number;
}

const COLUMNS = sql`id, organization_id, uid, source, discord_event_id, title, description, location, start_at, end_at, time_zone, all_day,
  recurrence, public, sequence, created_at, updated_at`;
const iso = (d: Date | number) => new Date(d).toISOString();

/** What officers and tools see of an event. All-day events also say their first and last day (`dates`). */
export function eventView(row: EventRow) {
  return {
    id: row.id, source: row.source, read_only: row.source === 'discord',
    ...publicView(row),
    public: row.public, sequence: row.sequence, created_at: iso(row.created_at), updated_at: iso(row.updated_at),
  };
}
export type EventView = ReturnType<typeof eventView>;

/** What anyone may see of a public event: no id, source, sequence or author. */
export function publicView(row: EventRow) {
  const start = new Date(row.start_at).getTime();
  const end = new Date(row.end_at).getTime();
  return {
    uid: row.uid, title: row.title, description: row.description, location: row.location,
    start_at: iso(start), end_at: iso(end), time_zone: row.time_zone, all_day: row.all_day, recurrence: row.recurrence,
    dates: row.all_day ? { first: dateText(toLocal(start, row.time_zone)), last: dateText(toLocal(end - 86_400_000 / 2, row.time_zone)) } : null,
  };
}

/** Check a whole event (a new one, or a stored one with a change applied). 400 naming the field. */
export function checkEvent(b: Required<Pick<EventBody, 'title' | 'start_at' | 'end_at' | 'time_zone'>> & EventBody): CheckedEvent {
  const title = b.title.trim();
  if (!title) throw badRequest('body.title: must not be blank', 'validation', { field: 'body.title' });
  const zone = checkZone(b.time_zone);
  const allDay = b.all_day ?? false;
  const start = parseInstant(b.start_at, 'body.start_at', allDay, zone);
  const end = parseInstant(b.end_at, 'body.end_at', allDay, zone);
  if (end <= start) {
    throw badRequest(`body.end_at: must be after start_at${allDay ? ' (all-day events end on the day after their last day)' : ''}`, 'end_before_start', { field: 'body.end_at' });
  }
  // All-day events measure days, which a DST change makes an hour longer or shorter.
  if (end - start > MAX_LENGTH_MS + (allDay ? 3_600_000 : 0)) throw badRequest('body.end_at: an event lasts at most 14 days', 'too_long', { field: 'body.end_at' });
  const recurrenceText = b.recurrence?.trim() ? b.recurrence.trim() : null;
  const parsed = recurrenceText === null ? null : parseRule(recurrenceText, { start, zone, allDay });
  const rule = parsed?.rule ?? null;
  return {
    title, description: (b.description ?? '').trim(), location: (b.location ?? '').trim(), start, end, zone, allDay, rule,
    recurrence: parsed?.text ?? null, isPublic: b.public ?? true, seriesEnd: seriesEnd({ start, end, zone, allDay, rule }),
  };
}

const seriesEndValue = (ms: number) => (Number.isFinite(ms) ? iso(ms) : 'infinity');

export async function findEvent(db: OrgDb, id: number, lock = false): Promise<EventRow> {
  const row = await db.one<EventRow>`select ${COLUMNS} from calendar_events where ${db.inOrg()} and id = ${id} ${lock ? sql`for update` : sql``}`;
  if (!row) throw notFound(`No event ${id}`, 'event_not_found');
  return row;
}

function refuseSynced(row: EventRow): void {
  if (row.source === 'discord') {
    throw conflict('This event is copied from the Discord server\'s scheduled events: change or delete it in Discord, the sync follows', 'synced_event');
  }
}

const eventData = (row: EventRow) => ({ id: row.id, uid: row.uid, title: row.title, start_at: iso(row.start_at), public: row.public });

export async function createEvent(db: OrgDb, services: CoreServices, body: EventBody & Parameters<typeof checkEvent>[0], actor: string | null): Promise<EventRow> {
  const e = checkEvent(body);
  return db.transaction(async (tx) => {
    const row = await tx.one<EventRow>`
      insert into calendar_events (organization_id, uid, title, description, location, start_at, end_at, time_zone, all_day, recurrence,
        series_end_at, public, created_by)
      values (${tx.org}, ${`${randomUUID()}@quad`}, ${e.title}, ${e.description}, ${e.location}, ${iso(e.start)}, ${iso(e.end)}, ${e.zone},
        ${e.allDay}, ${e.recurrence}, ${seriesEndValue(e.seriesEnd)}::timestamptz, ${e.isPublic}, ${actor})
      returning ${COLUMNS}`;
    await services.emit(tx.em, { orgId: tx.org, kind: 'calendar.event_created', title: `Event "${row!.title}" added to the calendar`, data: eventData(row!) });
    return row!;
  });
}

/** Change the fields given; the rest keep their values (the whole event is checked again). */
export async function updateEvent(db: OrgDb, services: CoreServices, id: number, body: EventBody): Promise<EventRow> {
  return db.transaction(async (tx) => {
    const old = await findEvent(tx, id, true);
    refuseSynced(old);
    const e = checkEvent({
      title: body.title ?? old.title, description: body.description ?? old.description, location: body.location ?? old.location,
      start_at: body.start_at ?? iso(old.start_at), end_at: body.end_at ?? iso(old.end_at), time_zone: body.time_zone ?? old.time_zone,
      all_day: body.all_day ?? old.all_day, recurrence: body.recurrence === undefined ? old.recurrence : body.recurrence, public: body.public ?? old.public,
    });
    const row = await tx.one<EventRow>`
      update calendar_events set title = ${e.title}, description = ${e.description}, location = ${e.location}, start_at = ${iso(e.start)},
        end_at = ${iso(e.end)}, time_zone = ${e.zone}, all_day = ${e.allDay}, recurrence = ${e.recurrence},
        series_end_at = ${seriesEndValue(e.seriesEnd)}::timestamptz, public = ${e.isPublic}, sequence = sequence + 1, updated_at = now()
      where ${tx.inOrg()} and id = ${id} returning ${COLUMNS}`;
    await services.emit(tx.em, { orgId: tx.org, kind: 'calendar.event_changed', title: `Event "${row!.title}" changed`, data: eventData(row!) });
    return row!;
  });
}

export async function deleteEvent(db: OrgDb, services: CoreServices, id: number): Promise<EventRow> {
  return db.transaction(async (tx) => {
    const old = await findEvent(tx, id, true);
    refuseSynced(old);
    await tx.run`delete from calendar_events where ${tx.inOrg()} and id = ${id}`;
    await services.emit(tx.em, { orgId: tx.org, kind: 'calendar.event_deleted', title: `Event "${old.title}" deleted`, data: eventData(old) });
    return old;
  });
}

export interface Window { from: number; to: number }

/** The listing window from query text: default now to 60 days on; at most 366 days. 400 naming the field. */
export function windowOf(query: { from?: string; to?: string }, now = Date.now(), prefix = 'querystring'): Window {
  const read = (text: string | undefined, name: 'from' | 'to') => {
    if (text === undefined) return undefined;
    const ms = Date.parse(text);
    if (!Number.isFinite(ms)) throw badRequest(`${prefix}.${name}: a date and time (ISO 8601)`, 'validation', { field: `${prefix}.${name}` });
    return ms;
  };
  const from = read(query.from, 'from') ?? now;
  const to = read(query.to, 'to') ?? from + WINDOW_DEFAULT_DAYS * 86_400_000;
  if (to <= from) throw badRequest(`${prefix}.to: must be after from`, 'validation', { field: `${prefix}.to` });
  if (to - from > WINDOW_MAX_DAYS * 86_400_000) throw badRequest(`${prefix}.to: a window spans at most ${WINDOW_MAX_DAYS} days`, 'window_too_long', { field: `${prefix}.to` });
  return { from, to };
}

/** Stored rows back as expansion input. */
export function timesOf(row: EventRow) {
  const start = new Date(row.start_at).getTime();
  const end = new Date(row.end_at).getTime();
  const rule = row.recurrence ? parseRule(row.recurrence, { start, zone: row.time_zone, allDay: row.all_day }).rule : null;
  return { start, end, zone: row.time_zone, allDay: row.all_day, rule };
}

/**
 * The events with an occurrence in the window and the occurrences, in order of start. At most LIST_CAP events are
 * read (those starting first) and LIST_CAP occurrences answered; `truncated` says a narrower window shows more.
 */
export async function listWindow(db: OrgDb, window: Window, publicOnly: boolean) {
  const rows = await db.sql<EventRow>`
    select ${COLUMNS} from calendar_events
    where ${db.inOrg()} and series_end_at > ${iso(window.from)}::timestamptz and start_at < ${iso(window.to)}::timestamptz ${publicOnly ? sql`and public` : sql``}
    order by start_at, id limit ${LIST_CAP + 1}`;
  let truncated = rows.length > LIST_CAP;
  const all: { row: EventRow; start: number; end: number }[] = [];
  for (const row of rows.slice(0, LIST_CAP)) {
    const found = occurrences(timesOf(row), window.from, window.to, LIST_CAP);
    truncated ||= found.truncated;
    for (const o of found.list) all.push({ row, ...o });
  }
  all.sort((a, b) => a.start - b.start || a.row.id - b.row.id);
  if (all.length > LIST_CAP) truncated = true;
  const shown = all.slice(0, LIST_CAP);
  const events = [...new Map(shown.map((o) => [o.row.id, o.row])).values()];
  return {
    from: iso(window.from), to: iso(window.to), truncated,
    events,
    occurrences: shown.map((o) => ({ uid: o.row.uid, start_at: iso(o.start), end_at: iso(o.end) })),
  };
}
