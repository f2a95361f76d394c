// @quad/plugin-uptime: the uptime module (spec document 1, "Limits": uptime.monitors; "Dashboard client rules":
// the Uptime page; category Monitoring, off by default). Monitors of http(s) URLs checked on a schedule through the
// core's safe fetcher, with raw checks (30 days), a daily rollup (400 days), and a down/up event and problem.
// README: routes, tools, jobs, limits, tables, events, problems, pages and the design decisions.
import { defineModule, orgDb, type DashboardDecl, type EntityManager } from '@quad/core';
import { uptimeRoutes } from './routes.js';
import { uptimeTools } from './tools.js';
import { checkDueJob, pruneJob } from './jobs.js';
import { DOWN_EVENT, UP_EVENT } from './record.js';
import { LIMIT_KEY } from './store.js';

/** The count limit's use: the org's monitors (the limits engine passes an EntityManager bound to the org). */
async function countMonitors(em: EntityManager): Promise<number> {
  const db = orgDb(em);
  return (await db.one<{ n: number }>`select count(*)::int as n from uptime_monitors where ${db.inOrg()}`)!.n;
}

const dashboard: DashboardDecl = {
  // The Overview card's counts (web/index.tsx UptimeCard).
  async overview({ db }) {
    const counts = await db.one<{ monitors: number; up: number; down: number; pending: number; paused: number }>`
      select count(*)::int as monitors, (count(*) filter (where not paused and state = 'up'))::int as up,
             (count(*) filter (where not paused and state = 'down'))::int as down,
             (count(*) filter (where not paused and state = 'pending'))::int as pending, (count(*) filter (where paused))::int as paused
      from uptime_monitors where ${db.inOrg()}`;
    return { ...counts! };
  },
};

export default defineModule({
  name: 'uptime',
  title: 'Uptime',
  description: 'Watch the org\'s websites: checks every few minutes, uptime and latency per day, an alert when one goes down.',
  category: 'Monitoring',
  coreVersion: '^0.1.0',
  scopes: [
    { name: 'uptime:read', description: 'Read the org\'s uptime monitors, their checks and daily uptime' },
    { name: 'uptime:manage', description: 'Add, change and delete the org\'s uptime monitors' },
  ],
  limits: [{
    key: LIMIT_KEY, kind: 'count', default: 50, paidBy: 'org', description: 'Uptime monitors of an org',
    count: countMonitors,
  }],
  tables: { uptime_monitors: 'org', uptime_checks: 'org', uptime_days: 'org' },
  migrations: new URL('./migrations/', import.meta.url),
  routes: uptimeRoutes,
  tools: uptimeTools,
  jobs: [checkDueJob, pruneJob],
  events: [DOWN_EVENT, UP_EVENT],
  dashboard,
  // The Uptime page and the Overview card: web/index.tsx, built to web/dist/ (README "Pages").
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    list: [{ path: 'uptime', title: 'Uptime', icon: 'activity', component: 'UptimePage' }],
    overviewCard: 'UptimeCard',
  },
});
