// The limits core module: the limits routes (officers and superadmin) and the daily prune of old rate counters.
import { defineJob, defineModule } from '../modules/define.js';
import { limitsRoutes } from './routes.js';

/** Rate counters are kept this long (the longest window is a day; a week of history stays readable). */
export const COUNTER_RETENTION_DAYS = 8;

export const pruneJob = defineJob({
  name: 'limits.prune',
  description: `Deletes rate-limit counters (usage_counters) whose window started more than ${COUNTER_RETENTION_DAYS} days ago.`,
  cron: '41 3 * * *',
  async handler({ services, log }) {
    const deleted = await services.acrossOrgs('limits.prune', (all) =>
      all.run`delete from usage_counters where window_start < now() - make_interval(days => ${COUNTER_RETENTION_DAYS})`);
    log.info(`limits.prune deleted ${deleted} counters`);
  },
});

export const limitsModule = defineModule({
  name: 'limits',
  title: 'Limits',
  description: 'Count and rate limits of every module, per org, with superadmin overrides.',
  category: 'Core',
  core: true,
  jobs: [pruneJob],
  routes: limitsRoutes,
});
