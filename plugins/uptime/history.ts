// A monitor's history: its latest raw checks (newest first, bounded; `before` a check id pages to older ones) and one row per UTC day from the
// rollup table (oldest first, every day of the range, days without checks included as zeros).
import type { EntityManager } from '@quad/core';
import { missing, percent } from './store.js';

interface CheckRow { id: string; checked_at: Date; ok: boolean; status: number | null; latency_ms: number; reason: string | null; message: string | null }
interface DayRow { day: string; checks: number; up: number; answered: number; latency_sum: string; latency_min: number | null; latency_max: number | null }

async function assertMonitor(em: EntityManager, orgId: number, id: number): Promise<void> {
  const [found] = await em.execute('select 1 from uptime_monitors where organization_id = ? and id = ?', [orgId, id]);
  if (!found) throw missing(id);
}

export async function recentChecks(em: EntityManager, orgId: number, id: number, limit: number, before?: number) {
  await assertMonitor(em, orgId, id);
  const rows = await em.execute<CheckRow[]>(
    `select id, checked_at, ok, status, latency_ms, reason, message from uptime_checks
     where organization_id = ? and monitor_id = ?
       ${before ? 'and (checked_at, id) < (select b.checked_at, b.id from uptime_checks b where b.id = ? and b.monitor_id = ?)' : ''}
     order by checked_at desc, id desc limit ?`, before ? [orgId, id, before, id, limit] : [orgId, id, limit]);
  return rows.map((r) => ({
    id: Number(r.id), at: new Date(r.checked_at).toISOString(), ok: r.ok, status: r.status, latency_ms: r.latency_ms,
    reason: r.reason as never, message: r.message,
  }));
}

export async function dailyUptime(em: EntityManager, orgId: number, id: number, days: number) {
  await assertMonitor(em, orgId, id);
  const rows = await em.execute<DayRow[]>(
    `select to_char(g.day, 'YYYY-MM-DD') as day, coalesce(d.checks, 0) as checks, coalesce(d.up, 0) as up, coalesce(d.answered, 0) as answered,
            coalesce(d.latency_sum, 0) as latency_sum, d.latency_min, d.latency_max
     from generate_series((now() at time zone 'utc')::date - (? - 1), (now() at time zone 'utc')::date, interval '1 day') as g(day)
     left join uptime_days d on d.organization_id = ? and d.monitor_id = ? and d.day = g.day::date
     order by g.day`, [days, orgId, id]);
  return rows.map((r) => ({
    day: r.day, checks: r.checks, up: r.up, uptime_pct: percent(r.up, r.checks),
    latency_ms: r.answered > 0 ? { min: r.latency_min!, avg: Math.round(Number(r.latency_sum) / r.answered), max: r.latency_max! } : null,
  }));
}
