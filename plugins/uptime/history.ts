// A monitor's history: its latest raw checks (newest first, bounded; `before` a check id pages to older ones) and one row per UTC day from the
// rollup table (oldest first, every day of the range, days without checks included as zeros).
import { sql, type OrgDb } from '@quad/core';
import { missing, percent } from './store.js';

interface CheckRow { id: string; checked_at: Date; ok: boolean; status: number | null; latency_ms: number; reason: string | null; message: string | null }
interface DayRow { day: string; checks: number; up: number; answered: number; latency_sum: string; latency_min: number | null; latency_max: number | null }

async function assertMonitor(db: OrgDb, id: number): Promise<void> {
  if (!await db.one`select 1 from uptime_monitors where ${db.inOrg()} and id = ${id}`) throw missing(id);
}

export async function recentChecks(db: OrgDb, id: number, limit: number, before?: number) {
  await assertMonitor(db, id);
  const older = before ? sql`and (checked_at, id) < (select b.checked_at, b.id from uptime_checks b where b.id = ${before} and b.monitor_id = ${id})` : sql``;
  const rows = await db.sql<CheckRow>`
    select id, checked_at, ok, status, latency_ms, reason, message from uptime_checks
    where ${db.inOrg()} and monitor_id = ${id} ${older}
    order by checked_at desc, id desc limit ${limit}`;
  return rows.map((r) => ({
    id: Number(r.id), at: new Date(r.checked_at).toISOString(), ok: r.ok, status: r.status, latency_ms: r.latency_ms,
    reason: r.reason as never, message: r.message,
  }));
}

export async function dailyUptime(db: OrgDb, id: number, days: number) {
  await assertMonitor(db, id);
  const rows = await db.sql<DayRow>`
    select to_char(g.day, 'YYYY-MM-DD') as day, coalesce(d.checks, 0) as checks, coalesce(d.up, 0) as up, coalesce(d.answered, 0) as answered,
           coalesce(d.latency_sum, 0) as latency_sum, d.latency_min, d.latency_max
    from generate_series((now() at time zone 'utc')::date - (${days}::integer - 1), (now() at time zone 'utc')::date, interval '1 day') as g(day)
    left join uptime_days d on ${db.inOrg('d')} and d.monitor_id = ${id} and d.day = g.day::date
    order by g.day`;
  return rows.map((r) => ({
    day: r.day, checks: r.checks, up: r.up, uptime_pct: percent(r.up, r.checks),
    latency_ms: r.answered > 0 ? { min: r.latency_min!, avg: Math.round(Number(r.latency_sum) / r.answered), max: r.latency_max! } : null,
  }));
}
