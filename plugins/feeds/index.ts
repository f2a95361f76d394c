// @quad/plugin-feeds: the feeds module (spec document 3, "Feeds"; category Webhooks, off by default). Each feed
// posts new listings to one Discord webhook: repo_jobs (a repository README's job tables, repo-jobs.ts) and
// hackathons (three public listings, hackathons/). README: routes, tools, jobs, limits, settings, tables, pages.
import { defineModule, orgDb, type DashboardDecl, type OrgDb } from '@quad/core';
import { FeedsSettings } from './settings.js';
import { feedRoutes } from './routes.js';
import { feedTools } from './tools.js';
import { runDueJob, runJob } from './jobs.js';
import { LIMIT_KEY } from './store.js';

const dashboard: DashboardDecl = {
  // The Overview card's counts (web/index.tsx FeedsCard).
  async overview({ db }) {
    const counts = await db.one<{ job_alerts: number; hackathons: number; failing: number; posts: number }>`
      select count(*) filter (where kind = 'repo_jobs')::int as job_alerts, count(*) filter (where kind = 'hackathons')::int as hackathons,
             count(*) filter (where last_error is not null)::int as failing, coalesce(sum(posts), 0)::int as posts
      from feeds where ${db.inOrg()}`;
    return { ...counts! };
  },
};

/** The limit's count: the org's feeds (the limits engine hands a fork bound to the org). */
async function countFeeds(db: OrgDb): Promise<number> {
  return (await db.one<{ n: number }>`select count(*)::int as n from feeds where ${db.inOrg()}`)!.n;
}

export default defineModule({
  name: 'feeds',
  title: 'Feeds',
  description: 'New job postings and hackathons, posted to a Discord channel per feed.',
  category: 'Webhooks',
  coreVersion: '^0.1.0',
  settings: FeedsSettings,
  scopes: [{ name: 'feeds:manage', description: 'List, add, change, run and delete the org\'s feeds' }],
  limits: [{
    key: LIMIT_KEY, kind: 'count', default: 20, paidBy: 'org', description: 'Feeds of an org',
    count: (em) => countFeeds(orgDb(em)),
  }],
  secrets: [{ name: 'alert_webhook_', perKey: true, writeOnly: true, label: 'Discord webhook URL of a feed (alert_webhook_<feed key>)' }],
  claims: { secrets: ['alert_webhook_'] },
  tables: { feeds: 'org', feeds_items: 'org', alert_runs: 'org' },
  migrations: new URL('./migrations/', import.meta.url),
  routes: feedRoutes,
  tools: feedTools,
  jobs: [runJob, runDueJob],
  dashboard,
  // The Job alerts and Hackathons pages and the Overview card: web/index.tsx, built to web/dist/ (README "Pages").
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    list: [
      { path: 'job-alerts', title: 'Job alerts', icon: 'bell', component: 'JobAlertsPage' },
      { path: 'hackathons', title: 'Hackathons', icon: 'trophy', component: 'HackathonsPage' },
    ],
    overviewCard: 'FeedsCard',
  },
});
