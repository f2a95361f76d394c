// Trends: one series per chart, one value per UTC day, from `since` (00:00 UTC, `days - 1` days before today)
// through today. The core's series come from its logs; each module that is on adds its own (manifest
// `dashboard.trends`); modules that are off have none.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from '../modules/registry.js';
import type { CoreServices } from '../services.js';
import type { OrgSnapshot } from '../orgs/org-cache.js';
import { withDb } from '../db/org-db.js';

export const TREND_DAYS_MIN = 7;
export const TREND_DAYS_MAX = 90;
export const TREND_DAYS_DEFAULT = 30;
const DAY_MS = 86_400_000;

export interface Series { module: string; key: string; title: string; values: number[] }
export interface Trends { days: number; since: string; until: string; dates: string[]; series: Series[]; unavailable: string[] }

/** The UTC days of a range ending today: `since` is 00:00 UTC of the first, `dates` are `YYYY-MM-DD`. */
export function dayRange(days: number, now = new Date()): { since: Date; end: Date; dates: string[] } {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const since = new Date(today - (days - 1) * DAY_MS);
  const dates = Array.from({ length: days }, (_, i) => new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10));
  return { since, end: new Date(today + DAY_MS), dates };
}

/** Rows of `table` of one org per UTC day of `column`, as one value per date. */
async function daily(em: EntityManager, sql: { table: string; column: string; where?: string }, orgId: number, range: ReturnType<typeof dayRange>): Promise<number[]> {
  const rows = await em.execute<{ day: string; n: number }[]>(
    `select to_char((${sql.column} at time zone 'UTC')::date, 'YYYY-MM-DD') as day, count(*)::int as n
     from ${sql.table}
     where organization_id = ? and ${sql.column} >= ? and ${sql.column} < ?${sql.where ? ` and ${sql.where}` : ''}
     group by 1`,
    [orgId, range.since.toISOString(), range.end.toISOString()]);
  const byDay = new Map(rows.map((r) => [r.day, Number(r.n)]));
  return range.dates.map((d) => byDay.get(d) ?? 0);
}

const CORE_SERIES = [
  { key: 'core.changes', title: 'Changes', sql: { table: 'audit_log', column: 'created_at' } },
  { key: 'core.errors', title: 'Errors', sql: { table: 'error_log', column: 'created_at' } },
  { key: 'core.job_runs', title: 'Job runs', sql: { table: 'job_runs', column: 'queued_at' } },
  { key: 'core.jobs_failed', title: 'Failed jobs', sql: { table: 'job_runs', column: 'finished_at', where: `status = 'failed'` } },
];

/** A module's values as exactly `days` finite numbers (missing or bad values count as 0). */
function fit(values: unknown, days: number): number[] {
  const list = Array.isArray(values) ? values : [];
  return Array.from({ length: days }, (_, i) => (typeof list[i] === 'number' && Number.isFinite(list[i]) ? list[i] : 0));
}

export async function trends(
  deps: { em: EntityManager; org: OrgSnapshot; registry: Registry; services: CoreServices; log: FastifyBaseLogger }, days: number, now = new Date(),
): Promise<Trends> {
  const range = dayRange(days, now);
  const { em, org, registry } = deps;
  const core = await Promise.all(CORE_SERIES.map(async (s) => ({ module: 'core', key: s.key, title: s.title, values: await daily(em, s.sql, org.id, range) })));
  const unavailable: string[] = [];
  const modules = await Promise.all(registry.modules
    .filter((m) => m.dashboard?.trends && registry.isEnabled(org.modules as Record<string, boolean>, m.name))
    .map(async (m) => {
      try {
        const series = await m.dashboard!.trends!(withDb({ em: em.fork(), org, services: deps.services }), { since: range.since, days });
        return series.map((s) => ({ module: m.name, key: String(s.key), title: String(s.title), values: fit(s.values, days) }));
      } catch (err) {
        deps.log.error({ err }, `dashboard trends of module ${m.name} failed: ${(err as Error).message}`);
        unavailable.push(m.name);
        return [];
      }
    }));
  return {
    days, since: range.dates[0], until: range.dates[range.dates.length - 1], dates: range.dates,
    series: [...core, ...modules.flat()], unavailable: unavailable.sort(),
  };
}

/**
 * For a module's `dashboard.trends`: the SQL of a row's UTC-day index from `since` (bind `since` where it appears),
 * e.g. `select ${dayIndexSql('created_at')} as day, count(*) as orders … group by 1`.
 */
export function dayIndexSql(column: string): string {
  return `floor(extract(epoch from (${column} - ?::timestamptz)) / 86400)::int`;
}

/** Rows of `{ day, <metric>… }` (day = index from `since`) as one array of `days` values per metric; other days are 0. */
export function bucketByDay<K extends string>(rows: readonly ({ day: number } & Record<K, unknown>)[], days: number, metrics: readonly K[]): Record<K, number[]> {
  const out = Object.fromEntries(metrics.map((m) => [m, new Array<number>(days).fill(0)])) as Record<K, number[]>;
  for (const row of rows) {
    if (row.day < 0 || row.day >= days) continue;
    for (const m of metrics) out[m][row.day] += Number(row[m] ?? 0);
  }
  return out;
}
