// @quad/plugin-event-webhook (module `event_webhook`): outbound event webhooks. Officers pick Discord channels
// (webhook URLs, stored encrypted and never shown again) and the events each one receives; every event of the
// org that a webhook selected is posted there by a retried job, and the last result is kept on the webhook.
import { bucketByDay, defineModule, type DashboardDecl } from '@quad/core';
import { Webhook } from './entities.js';
import { DELIVER_JOB, deliverJob, enqueueDeliveries } from './deliver.js';
import { KEY_SECRET } from './destination.js';
import { LIMIT_KEY, webhookRoutes } from './routes.js';

const dashboard: DashboardDecl = {
  async overview({ em }) {
    const hooks = await em.find(Webhook, {});
    return {
      webhooks: hooks.length,
      enabled: hooks.filter((h) => h.enabled).length,
      failing: hooks.filter((h) => h.enabled && h.lastOk === false).length,
    };
  },
  async trends({ db }, { since, days }) {
    // The core's dayIndexSql (written for em.execute's `?`), with `since` as the handle's bound value.
    const rows = await db.sql<{ day: number; delivered: number; failed: number }>`
      select floor(extract(epoch from (finished_at - ${since.toISOString()}::timestamptz)) / 86400)::int as day,
             count(*) filter (where status = 'succeeded')::int as delivered, count(*) filter (where status = 'failed')::int as failed
      from job_runs where ${db.inOrg()} and name = ${DELIVER_JOB} and status in ('succeeded', 'failed')
        and finished_at >= ${since.toISOString()}::timestamptz and finished_at < ${since.toISOString()}::timestamptz + make_interval(days => ${days}::integer)
      group by 1`;
    const { delivered, failed } = bucketByDay(rows, days, ['delivered', 'failed']);
    return [
      { key: 'event_webhook.delivered', title: 'Webhook deliveries', values: delivered },
      { key: 'event_webhook.failed', title: 'Failed webhook deliveries', values: failed },
    ];
  },
};

export default defineModule({
  name: 'event_webhook',
  title: 'Event webhooks',
  description: 'Post the org\'s events (orders, failed jobs, errors, pods, deploys, new members) to Discord channels.',
  category: 'Notifications',
  coreVersion: '^0.1.0',
  limits: [{
    key: LIMIT_KEY, kind: 'count', default: 20, paidBy: 'org', description: 'Outbound event webhooks of an org',
    count: (em) => em.count(Webhook, {}),
  }],
  secrets: [{
    name: KEY_SECRET, writeOnly: true,
    label: 'Key that encrypts the webhook destinations (made by Quad; deleting it makes every destination unreadable until set again)',
  }],
  tables: { event_webhook_webhooks: 'org' },
  entities: [Webhook],
  migrations: new URL('./migrations/', import.meta.url),
  routes: webhookRoutes,
  jobs: [deliverJob],
  eventHandlers: [enqueueDeliveries],
  dashboard,
  // The Events page (outbound webhooks) and Overview card: web/index.tsx, built to web/dist/ (README "Pages").
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    list: [{ path: 'events', title: 'Events', icon: 'bell', component: 'EventsPage' }],
    overviewCard: 'EventsCard',
  },
});
