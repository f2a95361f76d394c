// Pod sessions (compute_sessions; spec "Pods": title, start_at and stop_at in ISO 8601 with a time zone, 24 hours or
// less): the rules of a new session, the officers' reads and writes, and the records the job podhost.schedule
// (schedule.ts) works through. Writers hold the pod row's lock (findPod with lock), as the job does, so a session
// never changes under a run that is deciding about its pod.
import { badRequest, conflict, notFound, sql, type AcrossOrgsDb, type OrgDb } from '@quad/core';

export const SESSION_MAX_HOURS = 24;
/** Sessions a pod keeps, ended ones included, so its history cannot grow without bound (409 past it). */
export const SESSIONS_PER_POD = 200;
/** Days after its end a session is kept (the job prunes older ones). */
export const SESSION_RETENTION_DAYS = 30;

export interface SessionRow {
  id: string; pod_id: string; title: string; start_at: Date; stop_at: Date; created_by: string | null; created_at: Date;
  start_handled_at: Date | null; started_pod: boolean; end_handled_at: Date | null; deleted_at: Date | null;
}

const COLUMNS = sql`id, pod_id, title, start_at, stop_at, created_by, created_at, start_handled_at, started_pod, end_handled_at, deleted_at`;
const HOUR_MS = 3_600_000;
// Date, then hours and minutes, optional seconds and fraction, then the zone (the part some clients leave out).
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const EXAMPLE = '2030-06-01T18:00:00+02:00 or 2030-06-01T16:00:00Z';

/** An ISO 8601 date and time that names its time zone (Z or an offset), as an instant; 400 saying what is wrong. */
export function parseZonedTime(field: string, value: string): Date {
  const m = ISO_TIME.exec(value);
  if (!m) throw badRequest(`${field}: "${value}" is not an ISO 8601 date and time; write e.g. ${EXAMPLE}`, 'invalid_time', { field });
  const [, y, mo, d, h, mi, s = '0', frac = '0', zone] = m;
  if (!zone) {
    throw badRequest(`${field}: "${value}" has no time zone; add Z (UTC) or an offset, e.g. ${EXAMPLE}`, 'time_zone_missing', { field });
  }
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
  const local = Date.UTC(year, month - 1, day, hour, minute, second, Number(frac.padEnd(3, '0').slice(0, 3)));
  const back = new Date(local);
  const offset = zoneOffsetMinutes(zone);
  // Date.UTC rolls 2030-02-30 over into March: a date that does not come back as written does not exist.
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day
    || hour > 23 || minute > 59 || second > 59 || offset === null) {
    throw badRequest(`${field}: "${value}" is not a real date and time`, 'invalid_time', { field });
  }
  return new Date(local - offset * 60_000);
}

/** Minutes east of UTC, or null for an offset no zone has (hours past 23, minutes past 59). */
function zoneOffsetMinutes(zone: string): number | null {
  if (zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const [hours, minutes] = [Number(digits.slice(0, 2)), Number(digits.slice(2) || 0)];
  if (hours > 23 || minutes > 59) return null;
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

export interface SessionInput { title: string; start_at: string; stop_at: string }
export interface SessionWindow { title: string; start: Date; stop: Date }

/** A new session's rules (spec: zoned times, stop after start, 24 hours or less); one that already ended is refused. */
export function sessionWindow(input: SessionInput, now: Date): SessionWindow {
  const title = input.title.trim();
  if (!title) throw badRequest('title: a session needs a title', 'invalid_session', { field: 'title' });
  const start = parseZonedTime('start_at', input.start_at);
  const stop = parseZonedTime('stop_at', input.stop_at);
  if (stop <= start) throw badRequest('stop_at must be after start_at', 'stop_not_after_start', { field: 'stop_at' });
  if (stop.getTime() - start.getTime() > SESSION_MAX_HOURS * HOUR_MS) {
    throw badRequest(`A session lasts ${SESSION_MAX_HOURS} hours or less`, 'session_too_long', { field: 'stop_at' });
  }
  if (stop <= now) throw badRequest('This session would already have ended: stop_at is in the past', 'session_over', { field: 'stop_at' });
  return { title, start, stop };
}

export function sessionView(row: SessionRow) {
  return {
    id: Number(row.id), pod_id: row.pod_id, title: row.title,
    start_at: new Date(row.start_at).toISOString(), stop_at: new Date(row.stop_at).toISOString(),
    pod_started_by_schedule: row.started_pod,
    created_by: row.created_by, created_at: new Date(row.created_at).toISOString(),
  };
}

/** The pod's sessions as officers see them (not those deleted and waiting for the schedule), by start. */
export async function listSessions(db: OrgDb, podId: string): Promise<SessionRow[]> {
  return db.sql<SessionRow>`select ${COLUMNS} from compute_sessions where ${db.inOrg()} and pod_id = ${podId} and deleted_at is null order by start_at, id`;
}

/** Add a session; the caller holds the pod row's lock, so two creates cannot both take the last place. */
export async function insertSession(tx: OrgDb, podId: string, s: SessionWindow, createdBy: string | null): Promise<SessionRow> {
  const { n } = (await tx.one<{ n: number }>`select count(*)::int as n from compute_sessions where ${tx.inOrg()} and pod_id = ${podId}`)!;
  if (n >= SESSIONS_PER_POD) {
    throw conflict(`A pod keeps at most ${SESSIONS_PER_POD} sessions (ended ones go ${SESSION_RETENTION_DAYS} days after their end); delete some first`, 'too_many_sessions', { limit: SESSIONS_PER_POD });
  }
  const [row] = await tx.sql<SessionRow>`
    insert into compute_sessions (organization_id, pod_id, title, start_at, stop_at, created_by)
    values (${tx.org}, ${podId}, ${s.title}, ${s.start}, ${s.stop}, ${createdBy}) returning ${COLUMNS}`;
  return row!;
}

/**
 * Remove a session (404 when the pod has no such one). When the schedule started the pod for it and has not handled
 * its end, the row stays hidden (deleted_at) so the next run stops the pod; `podStopPending` says so.
 */
export async function removeSession(tx: OrgDb, podId: string, id: number): Promise<{ row: SessionRow; podStopPending: boolean }> {
  const row = await tx.one<SessionRow>`
    select ${COLUMNS} from compute_sessions where ${tx.inOrg()} and pod_id = ${podId} and id = ${id} and deleted_at is null for update`;
  if (!row) throw notFound(`No session ${id} on pod ${podId}`, 'session_not_found');
  const podStopPending = row.started_pod && row.end_handled_at === null;
  if (podStopPending) await tx.run`update compute_sessions set deleted_at = now() where ${tx.inOrg()} and id = ${row.id}`;
  else await tx.run`delete from compute_sessions where ${tx.inOrg()} and id = ${row.id}`;
  return { row, podStopPending };
}

// ---- For the job podhost.schedule ----

/** A pod with a transition due, as the sweep across orgs finds it. */
export interface DuePod { organization_id: number; pod_id: string }

/**
 * Pods of every org with a transition due at `now`: a session that starts within `leadMs` and was not started, or
 * one that ended or was deleted and whose end was not handled.
 */
export async function podsWithDueSessions(all: AcrossOrgsDb, now: Date, leadMs: number): Promise<DuePod[]> {
  return all.sql<DuePod>`
    select distinct organization_id, pod_id from compute_sessions
    where end_handled_at is null
      and (stop_at <= ${now} or deleted_at is not null or (start_handled_at is null and start_at <= ${new Date(now.getTime() + leadMs)}))
    order by organization_id, pod_id`;
}

/** The pod's sessions whose end was not handled yet (deleted ones included); the caller holds the pod row's lock. */
export async function unfinishedSessions(tx: OrgDb, podId: string): Promise<SessionRow[]> {
  return tx.sql<SessionRow>`select ${COLUMNS} from compute_sessions where ${tx.inOrg()} and pod_id = ${podId} and end_handled_at is null order by start_at, id`;
}

export async function markStartHandled(tx: OrgDb, ids: string[], startedPod: boolean, now: Date): Promise<void> {
  if (!ids.length) return;
  await tx.run`update compute_sessions set start_handled_at = ${now}, started_pod = ${startedPod} where ${tx.inOrg()} and id = any(${ids}::bigint[])`;
}

/** The end of these sessions was handled: deleted ones go for good, the others keep their history. */
export async function markEndHandled(tx: OrgDb, ids: string[], now: Date): Promise<void> {
  if (!ids.length) return;
  await tx.run`delete from compute_sessions where ${tx.inOrg()} and deleted_at is not null and id = any(${ids}::bigint[])`;
  await tx.run`
    update compute_sessions set end_handled_at = ${now}, start_handled_at = coalesce(start_handled_at, ${now})
    where ${tx.inOrg()} and id = any(${ids}::bigint[])`;
}

/** Sessions of every org that ended more than SESSION_RETENTION_DAYS before `now` go (handled or not: their pod is long past them). */
export async function pruneEndedSessions(all: AcrossOrgsDb, now: Date): Promise<number> {
  return all.run`delete from compute_sessions where stop_at < ${new Date(now.getTime() - SESSION_RETENTION_DAYS * 24 * HOUR_MS)}`;
}
