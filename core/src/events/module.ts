// The events core module: the event kinds the core emits, the Activity routes (notifications, errors, changes,
// job runs) and the daily prune of old events.
import { defineJob, defineModule } from '../modules/define.js';
import { CORE_EVENT_KINDS, EVENT_RETENTION_DAYS, EVENTS_KEPT_PER_ORG, pruneAllEvents } from './events.js';
import { activityRoutes } from './routes.js';

export const pruneEventsJob = defineJob({
  name: 'events.prune',
  description: `Deletes events older than ${EVENT_RETENTION_DAYS} days and beyond the newest ${EVENTS_KEPT_PER_ORG} of each org (problems stay).`,
  cron: '17 4 * * *',
  maxAttempts: 3,
  async handler({ services, log }) {
    const deleted = await services.acrossOrgs('events.prune', pruneAllEvents);
    log.info(`events.prune deleted ${deleted} events`);
  },
});

export const eventsModule = defineModule({
  name: 'events',
  title: 'Events and activity',
  description: 'Notifications (events and problems), the error log, the audit log and job runs of an org.',
  category: 'Core',
  core: true,
  events: [...CORE_EVENT_KINDS],
  jobs: [pruneEventsJob],
  routes: activityRoutes,
});
