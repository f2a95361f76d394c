// The overview: every dashboard section in one response. The core's counts, open problems, CI, and the recent
// changes and job runs; then one section per module that is on and declares `dashboard.overview`. A section
// that fails is answered `{ unavailable: true }` (and logged) instead of failing the whole page.
import { orgDbFor } from '../db/org-db.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { AuditEntry, JobRun, Notification } from '../entities/logs.js';
import { EVENT_RETENTION_DAYS } from '../events/events.js';
import { changeView, jobRunView, notificationView } from '../events/routes.js';
import type { Registry } from '../modules/registry.js';
import type { OrgSnapshot } from '../orgs/org-cache.js';
import type { CoreServices } from '../services.js';
import type { CiRuns } from './ci.js';
import { withDb } from '../db/org-db.js';

/** Rows of each recent list. */
export const RECENT_ROWS = 10;

export async function overview(deps: {
  em: EntityManager; org: OrgSnapshot; registry: Registry; services: CoreServices; ci: CiRuns; log: FastifyBaseLogger;
}) {
  const { em, org, registry, services, ci, log } = deps;
  const since = (ms: number) => new Date(Date.now() - ms);
  const day = 86_400_000;

  const [counts, problems, changes, runs, ciAnswer, sections] = await Promise.all([
    // The six counts in one statement (one round trip instead of six in a row).
    (async () => {
      const db = orgDbFor(em, org.id);
      const row = await db.one<Record<string, number>>`select
           (select count(*)::int from notifications where ${db.inOrg()} and category = 'problem' and status = 'open') as open_problems,
           (select count(*)::int from notifications where ${db.inOrg()} and category = 'event' and status = 'open'
              and created_at >= ${since(EVENT_RETENTION_DAYS * day).toISOString()}::timestamptz) as open_events,
           (select count(*)::int from error_log where ${db.inOrg()} and status = 'open') as open_errors,
           (select count(*)::int from error_log where ${db.inOrg()} and created_at >= ${since(day).toISOString()}::timestamptz) as errors_24h,
           (select count(*)::int from job_runs where ${db.inOrg()} and status = 'failed' and finished_at >= ${since(day).toISOString()}::timestamptz) as failed_jobs_24h,
           (select count(*)::int from audit_log where ${db.inOrg()} and created_at >= ${since(7 * day).toISOString()}::timestamptz) as changes_7d`;
      const counts = ['open_problems', 'open_events', 'open_errors', 'errors_24h', 'failed_jobs_24h', 'changes_7d'] as const;
      return Object.fromEntries(counts.map((k) => [k, Number(row![k])])) as Record<(typeof counts)[number], number>;
    })(),
    em.fork().find(Notification, { category: 'problem', status: 'open' }, { orderBy: { raisedAt: 'desc', id: 'desc' }, limit: RECENT_ROWS }),
    em.fork().find(AuditEntry, {}, { orderBy: { id: 'desc' }, limit: RECENT_ROWS }),
    em.fork().find(JobRun, {}, { orderBy: { id: 'desc' }, limit: RECENT_ROWS }),
    ci.runs(em.fork(), org.id),
    Promise.all(registry.modules
      .filter((m) => m.dashboard?.overview && registry.isEnabled(org.modules as Record<string, boolean>, m.name))
      .map(async (m): Promise<[string, Record<string, unknown>]> => {
        try {
          return [m.name, await m.dashboard!.overview!(withDb({ em: em.fork(), org, services }))];
        } catch (err) {
          log.error({ err }, `dashboard overview of module ${m.name} failed: ${(err as Error).message}`);
          return [m.name, { unavailable: true }];
        }
      })),
  ]);
  return {
    org: { id: org.id, prefix: org.prefix, name: org.name },
    generated_at: new Date().toISOString(),
    counts,
    problems: problems.map(notificationView),
    ci: ciAnswer,
    modules: Object.fromEntries(sections),
    recent: { changes: changes.map(changeView), job_runs: runs.map(jobRunView) },
  };
}
