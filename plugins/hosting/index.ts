// @quad/plugin-hosting: the hosting module (module id `hostprov`, shown as Hosting; spec document 1, "Dashboard
// routes" apps and hosting providers, "Limits" hostprov.apps). Officers register apps (a manifest: image repository,
// GPU or CPU, ports, env, secret env from org secrets, a health check) and deploy tags or digests of them: the first
// deploy creates a pod on the org's provider account through the pods module's service `podhost.provider`, later
// ones update it; jobs check health through the provider's proxy and roll back a deploy that never turns healthy.
// README: routes, tools, jobs, limits, settings, tables, events, problems, pages and decisions.
import { defineModule, orgDb, type DashboardDecl } from '@quad/core';
import { LIMIT_KEY } from './apps.js';
import { hostingJobs } from './jobs.js';
import { podProviderRef } from './provider.js';
import { hostingRoutes } from './routes.js';
import { HostingSettings, MODULE } from './settings.js';
import { hostingTools } from './tools.js';

const dashboard: DashboardDecl = {
  // The Overview card's counts (web/index.tsx HostingCard).
  async overview({ db }) {
    const counts = await db.one<{ apps: number; live: number; unhealthy: number; deploying: number }>`
      select count(*)::int as apps, count(current_deploy_id)::int as live,
             count(*) filter (where current_deploy_id is not null and health_status = 'unhealthy')::int as unhealthy,
             (select count(*)::int from hostprov_deploys d where ${db.inOrg('d')} and d.status in ('queued', 'starting')) as deploying
      from hostprov_apps where ${db.inOrg()}`;
    return { ...counts! };
  },
};

export default defineModule({
  name: MODULE,
  title: 'Hosting',
  description: 'Apps deployed as pods on the org\'s own provider account, with health checks, deploy history and roll back.',
  category: 'Compute',
  coreVersion: '^0.1.0',
  needs: [{ key: 'hostprov', label: 'hostprov API key (the pod provider account)', kind: 'integration' }],
  consumes: [podProviderRef],
  settings: HostingSettings,
  scopes: [
    { name: 'hostprov:read', description: 'See the org\'s hosted apps, their deploys and health' },
    { name: 'hostprov:manage', description: 'Deploy and roll back the org\'s hosted apps', uses: ['hostprov'] },
  ],
  limits: [{
    key: LIMIT_KEY, kind: 'count', default: 25, paidBy: 'org', description: 'hosting apps',
    // The limits engine counts on an EntityManager bound to the org.
    count: async (em) => {
      const db = orgDb(em);
      return (await db.one<{ n: number }>`select count(*)::int as n from hostprov_apps where ${db.inOrg()}`)!.n;
    },
  }],
  secrets: [{ name: 'hostprov.env_', perKey: true, writeOnly: true, label: 'A secret environment value of hosted apps (hostprov.env_<key>, named in an app\'s secret_env)' }],
  tables: { hostprov_apps: 'org', hostprov_deploys: 'org' },
  migrations: new URL('./migrations/', import.meta.url),
  routes: hostingRoutes,
  tools: hostingTools,
  jobs: hostingJobs,
  events: ['hostprov.deploy_started', 'hostprov.deployed', 'hostprov.deploy_failed', 'hostprov.rolled_back', 'hostprov.app_deleted'],
  dashboard,
  // The Hosting page and the Overview card: web/index.tsx, built to web/dist/ (README "Pages").
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    list: [{ path: 'hosting', title: 'Hosting', icon: 'globe', component: 'HostingPage' }],
    overviewCard: 'HostingCard',
  },
});
