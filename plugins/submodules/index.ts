// @quad/plugin-submodules: the submodules module (spec document 3, "Submodules"; off by default). A submodule is a
// shared domain — a university, careers — declared as content in a package (quad-submodule-kit's defineSubmodule;
// the packages named in SUBMODULES_PACKAGES, campus and careers by default, loaded and checked in catalog.ts). Orgs
// subscribe (subscriptions.ts, limit submodules.subscriptions); each module that reads a submodule takes its part:
// shared pages (the knowledge module crawls them once for all subscribers), live queries (queries/, routes and the
// tool submodules.query; answers indexed into the org's knowledge by index-result.ts), feed presets (the feeds
// module, through the service `submodules.subscriptions`) and links. The knowledge module is optional.
import { defineModule, provide } from '@quad/core';
import { Subscription } from './entities.js';
import { indexResultJob } from './index-result.js';
import { SEARCH_SECRETS, testSearch } from './queries/search.js';
import { submoduleSubscriptions, subscriptionsFor } from './service.js';
import { CLAIMED_SETTINGS, SubmodulesSettingsSchema } from './settings.js';
import { LIMIT_KEY } from './subscriptions.js';
import { ALIAS_TOOLS, submodulesTools } from './tools.js';

export default defineModule({
  name: 'submodules',
  title: 'Submodules',
  description: 'Shared domains the org subscribes to, such as a university or careers: their public pages in the org\'s knowledge, live answers from their sites, and feed presets.',
  category: 'AI',
  // Shared pages land in the knowledge search, live answers in the org's knowledge, and the live queries take its
  // scope knowledge:read: without the knowledge module those parts are off (submodules.query is not offered).
  needs: [{ key: 'knowledge', label: 'Knowledge (shared pages in search, live answers indexed)', kind: 'module', optional: true }],
  coreVersion: '^0.1.0',
  scopes: [
    { name: 'submodules:read', description: 'List submodules and the org\'s subscriptions (submodules.list); run live queries with submodules.query (and the query routes when the knowledge module is not loaded)' },
    { name: 'submodules:manage', description: 'Subscribe the org to submodules and end subscriptions' },
  ],
  limits: [{
    key: LIMIT_KEY, kind: 'count', default: 20, paidBy: 'org', description: 'submodule subscriptions of an org',
    count: (em) => em.count(Subscription, {}),
  }],
  integrations: [{
    key: 'search',
    title: 'Web search',
    description: 'A search service with a SearXNG-style JSON API (GET <url>/search?q=&format=json) for the submodules\' web query; without it the deployment\'s (SEARCH_URL) is used.',
    secrets: [{ name: SEARCH_SECRETS.url, label: 'Base URL', readable: true }],
    // queries/search.ts: one test query.
    test: testSearch,
  }],
  tables: { submodules_subscriptions: 'org' },
  entities: [Subscription],
  migrations: new URL('./migrations/', import.meta.url),
  // routes/dashboard.ts (officers), api.ts (tokens), campus.ts (legacy /api/campus/*), superadmin.ts.
  routes: new URL('./routes/', import.meta.url),
  tools: submodulesTools,
  jobs: [indexResultJob],
  provides: [provide(submoduleSubscriptions, subscriptionsFor)],
  settings: SubmodulesSettingsSchema,
  // The spec's older tool names, kept as aliases of submodules.list and submodules.subscribe (tools.ts).
  claims: { settings: CLAIMED_SETTINGS, tools: ALIAS_TOOLS },
  // Explore's Submodules tab: web/index.tsx, built to web/dist/ (README "Pages").
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    exploreTabs: [{ id: 'submodules', label: 'Submodules', component: 'SubmodulesTab' }],
  },
});
