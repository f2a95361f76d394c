// Monitor records: list, read, create, change and delete, through the org-bound handle (README "Org isolation"). The list's 24 h
// uptime reads at most a day of checks per monitor from an index (monitor, time, ok), its 30 d uptime at most 30
// rollup rows: neither grows with a monitor's age. A change of what a check tests, or a pause, starts the monitor
// afresh (pending, no failures counted, its down problem cleared).
import { notFound, sql, type CoreServices, type OrgDb } from '@quad/core';
import { BOUNDS, checkName, checkUrl } from './fields.js';
import { problemKey } from './record.js';

export const LIMIT_KEY = 'uptime.monitors';
/** Rows of GET /monitors (the count limit defaults to 50; an override may allow more). */
export const LIST_MAX = 500;

export interface MonitorRow {
  id: number; organization_id: number; name: string; url: string; interval_seconds: number; expected_status: number;
  timeout_ms: number; keyword: string | null; down_after: number; paused: boolean; state: 'pending' | 'up' | 'down';
  consecutive_failures: number; state_changed_at: Date | null; next_check_at: Date; last_check_at: Date | null;
  last_ok: boolean | null; last_status: number | null; last_latency_ms: number | null; last_reason: string | null;
  last_message: string | null; created_at: Date; updated_at: Date;
}
interface Uptimes { checks_24h: number; up_24h: number; checks_30d: number; up_30d: number }

export interface MonitorInput {
  name?: string; url?: string; interval_seconds?: number; expected_status?: number; timeout_ms?: number;
  keyword?: string | null; down_after?: number; paused?: boolean;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
/** Percent with 2 decimals; null without checks. */
export const percent = (up: number, checks: number) => (checks > 0 ? Math.round((up / checks) * 10_000) / 100 : null);

export function monitorView(row: MonitorRow & Partial<Uptimes>) {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    interval_seconds: row.interval_seconds,
    expected_status: row.expected_status,
    timeout_ms: row.timeout_ms,
    keyword: row.keyword,
    down_after: row.down_after,
    paused: row.paused,
    state: row.paused ? 'paused' as const : row.state,
    state_changed_at: iso(row.state_changed_at),
    consecutive_failures: row.consecutive_failures,
    last_check: row.last_check_at && {
      at: iso(row.last_check_at)!, ok: row.last_ok!, status: row.last_status, latency_ms: row.last_latency_ms ?? 0,
      reason: row.last_reason as never, message: row.last_message,
    },
    next_check_at: row.paused ? null : iso(row.next_check_at),
    uptime_24h: percent(row.up_24h ?? 0, row.checks_24h ?? 0),
    uptime_30d: percent(row.up_30d ?? 0, row.checks_30d ?? 0),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}
export type MonitorView = ReturnType<typeof monitorView>;

const WITH_UPTIMES = sql`
  select m.*, coalesce(h.checks, 0) as checks_24h, coalesce(h.up, 0) as up_24h, coalesce(d.checks, 0) as checks_30d, coalesce(d.up, 0) as up_30d
  from uptime_monitors m
  left join lateral (select count(*)::int as checks, (count(*) filter (where c.ok))::int as up from uptime_checks c
                     where c.monitor_id = m.id and c.checked_at > now() - interval '24 hours') h on true
  left join lateral (select sum(x.checks)::int as checks, sum(x.up)::int as up from uptime_days x
                     where x.monitor_id = m.id and x.day > (now() at time zone 'utc')::date - 30) d on true`;

export async function listMonitors(db: OrgDb): Promise<MonitorView[]> {
  const rows = await db.sql<MonitorRow & Uptimes>`${WITH_UPTIMES} where ${db.inOrg('m')} order by m.id limit ${LIST_MAX}`;
  return rows.map(monitorView);
}

export async function getMonitor(db: OrgDb, id: number): Promise<MonitorView> {
  const row = await db.one<MonitorRow & Uptimes>`${WITH_UPTIMES} where ${db.inOrg('m')} and m.id = ${id}`;
  if (!row) throw missing(id);
  return monitorView(row);
}

export const missing = (id: number) => notFound(`No monitor ${id}`, 'monitor_not_found');

/** Insert a monitor (the caller reserved the count limit in the same transaction); answers its id. */
export async function createMonitor(db: OrgDb, input: MonitorInput & { name: string; url: string }): Promise<number> {
  const made = await db.one<{ id: number }>`
    insert into uptime_monitors (organization_id, name, url, interval_seconds, expected_status, timeout_ms, keyword, down_after, paused)
    values (${db.org}, ${checkName(input.name)}, ${checkUrl(input.url)}, ${input.interval_seconds ?? BOUNDS.interval_seconds.default},
            ${input.expected_status ?? BOUNDS.expected_status.default}, ${input.timeout_ms ?? BOUNDS.timeout_ms.default}, ${input.keyword ?? null},
            ${input.down_after ?? BOUNDS.down_after.default}, ${input.paused ?? false})
    returning id`;
  return made!.id;
}

/** Change a monitor (fields left out stay); 404 when the org has no such monitor. Answers what changed, for the audit. */
export async function changeMonitor(db: OrgDb, services: CoreServices, id: number, input: MonitorInput): Promise<string[]> {
  const name = input.name === undefined ? undefined : checkName(input.name);
  const url = input.url === undefined ? undefined : checkUrl(input.url);
  return db.transaction(async (tx) => {
    const old = await tx.one<MonitorRow>`select * from uptime_monitors where ${tx.inOrg()} and id = ${id} for update`;
    if (!old) throw missing(id);
    const next = { ...old, ...stripUndefined({ ...input, name, url }) } as MonitorRow;
    const changed = (['name', 'url', 'interval_seconds', 'expected_status', 'timeout_ms', 'keyword', 'down_after', 'paused'] as const)
      .filter((k) => next[k] !== old[k]);
    const retest = changed.some((k) => ['url', 'expected_status', 'timeout_ms', 'keyword', 'paused'].includes(k));
    await tx.run`
      update uptime_monitors set name = ${next.name}, url = ${next.url}, interval_seconds = ${next.interval_seconds},
        expected_status = ${next.expected_status}, timeout_ms = ${next.timeout_ms}, keyword = ${next.keyword},
        down_after = ${next.down_after}, paused = ${next.paused}, updated_at = now(),
        state = case when ${retest} then 'pending' else state end,
        consecutive_failures = case when ${retest} then 0 else consecutive_failures end,
        state_changed_at = case when ${retest} and state <> 'pending' then now() else state_changed_at end,
        -- a retest is due at once; a new interval counts from the last check
        next_check_at = case when ${retest} then now() else coalesce(last_check_at + make_interval(secs => ${next.interval_seconds}), next_check_at) end
      where ${tx.inOrg()} and id = ${id}`;
    // A down monitor that changed or paused is no longer known to be down; a later check raises it again.
    if (retest) await services.clearProblem(tx.em, tx.org, problemKey(id));
    return changed;
  });
}

/** Delete a monitor with its checks and days (cascade) and its down problem. */
export async function deleteMonitor(db: OrgDb, services: CoreServices, id: number): Promise<{ name: string }> {
  return db.transaction(async (tx) => {
    const gone = await tx.one<{ name: string }>`delete from uptime_monitors where ${tx.inOrg()} and id = ${id} returning name`;
    if (!gone) throw missing(id);
    await services.clearProblem(tx.em, tx.org, problemKey(id));
    return gone;
  });
}

function stripUndefined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
