// The core module: always on; owns the core tables (top-level migrations/), the health route and housekeeping.
import { defineJob, defineModule } from './modules/define.js';
import { healthRoutes } from './http/health.js';

/** Finished job runs are kept this long for the dashboard's job-run log. */
export const JOB_RUNS_KEPT_DAYS = 30;

const pruneJob = defineJob({
  name: 'core.prune',
  description: `Deletes job runs finished more than ${JOB_RUNS_KEPT_DAYS} days ago, jobs graphile-worker gave up on more than 7 days ago and report mode's counts older than 2 days.`,
  cron: '23 3 * * *',
  async handler({ services }) {
    await services.acrossOrgs('core.prune', async (all) => {
      await all.run`delete from job_runs where finished_at < now() - make_interval(days => ${JOB_RUNS_KEPT_DAYS})`;
      // The start's warning reads the last day of report mode's counts.
      await all.run`delete from access_would_deny where hour < now() - interval '2 days'`;
      // graphile-worker deletes jobs that succeed but keeps those that failed for good (PITFALLS.md).
      await all.run`delete from graphile_worker._private_jobs
        where attempts >= max_attempts and locked_at is null and updated_at < now() - interval '7 days'`;
    });
  },
});

export const coreModule = defineModule({
  name: 'core',
  title: 'Core',
  description: 'Orgs, sign-in, notifications, audit and error logs, jobs and health.',
  category: 'Core',
  core: true,
  // The org table itself and who may sign in are global; every other core table holds one org's rows (the audit,
  // error and job-run logs also hold rows of no org, which only the cross-org path sees).
  tables: {
    organizations: 'global', users: 'global', sign_in_codes: 'global', refresh_tokens: 'global', revoked_tokens: 'global',
    app_tokens: 'global', machine_tokens: 'org', notifications: 'org', audit_log: 'org', error_log: 'org', job_runs: 'org',
    org_limits: 'org', usage_counters: 'org', org_secrets: 'org', dashboard_ci_cache: 'org', access_would_deny: 'global',
  },
  migrations: new URL('../../migrations/', import.meta.url),
  routes: healthRoutes,
  jobs: [pruneJob],
});
