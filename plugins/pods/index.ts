// @quad/plugin-pods: the pods module (spec document 2, "Pods"; module id `podhost`, shown as Pods). Officers make GPU
// and CPU pods on the org's own provider account (hostprov, provider/) and choose who may use them (pods.ts,
// routes/pods.ts); the org's keys (keys.ts) go into each pod, whose SSH trusts certificates the org's CA signs for
// one pod (certificates.ts). Members get one with their session or CLI token (routes/me.ts; the CLI signs in at
// routes/cli.ts and is its own package, cli/); the service itself logs in as root for connected sessions and files
// (ssh/, routes/connected.ts, routes/files.ts). Members of the server (members.ts), sessions and the job that starts
// and stops pods around them (sessions.ts, schedule.ts), tools for agents (tools.ts), the officers' page (web/).
import { defineModule, orgDb, provide } from '@quad/core';
import { LOST_POD_DELETED } from './lost-creates.js';
import { testHostprov } from './pods.js';
import { scheduleJob } from './schedule.js';
import { podsTools } from './tools.js';
import { podProviderRef, podProviderService } from './provider/service.js';
import { API_KEY_SECRET, CLAIMED_SETTINGS, MODULE, PODS_LIMIT, PROVIDER, PodsSettingsSchema } from './settings.js';

export default defineModule({
  name: MODULE,
  title: 'Pods',
  description: 'GPU and CPU pods on the org\'s own provider account, which members reach over SSH with a certificate for one pod.',
  category: 'Compute',
  coreVersion: '^0.1.0',
  limits: [{
    key: PODS_LIMIT, kind: 'count', default: 10, paidBy: 'org', description: 'pods',
    // The limits engine counts on an EntityManager bound to the org.
    count: async (em) => {
      const db = orgDb(em);
      return (await db.one<{ n: number }>`select count(*)::int as n from compute_pods where ${db.inOrg()}`)!.n;
    },
  }],
  integrations: [{
    key: PROVIDER,
    title: 'hostprov (pods)',
    description: 'The org\'s own account at the pod provider: its pods are made and billed there.',
    secrets: [{ name: API_KEY_SECRET, label: 'API key' }],
    // pods.ts: lists the account's pods with the key.
    test: testHostprov,
  }],
  // podhost:connect is not declared: it is no scope an officer may grant, only the one a member's CLI sign-in gets.
  scopes: [
    { name: 'podhost:read', description: 'See the org\'s pods with their live status, and their sessions' },
    { name: 'podhost:manage', description: 'Start, stop and restart the org\'s pods and plan their sessions (not terminate, not access)', uses: ['hostprov'] },
  ],
  tools: podsTools,
  // The org's provider for the hosting module (hostprov), which makes its apps' pods with it: provider/service.ts.
  provides: [provide(podProviderRef, podProviderService)],
  jobs: [scheduleJob],
  events: ['podhost.pod_created', 'podhost.pod_started', 'podhost.pod_stopped', 'podhost.pod_restarted', 'podhost.pod_terminated', LOST_POD_DELETED],
  tables: { compute_pods: 'org', compute_keys: 'org', compute_connections: 'org', compute_sessions: 'org', compute_lost_creates: 'org' },
  migrations: new URL('./migrations/', import.meta.url),
  routes: new URL('./routes/', import.meta.url),
  pages: {
    bundle: new URL('./web/dist/', import.meta.url),
    list: [{ path: 'pods', title: 'Pods', icon: 'server', component: 'PodsPage' }],
  },
  settings: PodsSettingsSchema,
  // Names the spec pins outside podhost_*: the tables compute_* (spec "Records") and the provider's URL setting.
  claims: { settings: CLAIMED_SETTINGS },
});
