// @quad/plugin-pods: the pods module (spec document 2, "Pods"; module id `podhost`, shown as Pods). Officers make GPU
// and CPU pods on the org's own provider account (hostprov, provider/) and choose who may use them (pods.ts,
// routes/pods.ts); the org's default image (routes/settings.ts). Coming next (issue 18): SSH keys and certificates,
// members' connect and the CLI with its scope podhost:connect (only a member's own sign-in may hold it), connected
// sessions and files over SSH, sessions and the scheduler, the pages.
import { defineModule } from '@quad/core';
import { API_KEY_SECRET, CLAIMED_SETTINGS, MODULE, PODS_LIMIT, PROVIDER, PodsSettingsSchema } from './settings.js';

export default defineModule({
  name: MODULE,
  title: 'Pods',
  description: 'GPU and CPU pods on the org\'s own provider account, which members reach over SSH with a certificate for one pod.',
  category: 'Compute',
  coreVersion: '^0.1.0',
  limits: [{
    key: PODS_LIMIT, kind: 'count', default: 10, paidBy: 'org', description: 'pods',
    count: async (em, orgId) => Number((await em.execute('select count(*)::int as n from compute_pods where organization_id = ?', [orgId]))[0].n),
  }],
  integrations: [{
    key: PROVIDER,
    title: 'hostprov (pods)',
    description: 'The org\'s own account at the pod provider: its pods are made and billed there.',
    secrets: [{ name: API_KEY_SECRET, label: 'API key' }],
  }],
  events: ['podhost.pod_created', 'podhost.pod_started', 'podhost.pod_stopped', 'podhost.pod_restarted', 'podhost.pod_terminated'],
  migrations: new URL('./migrations/', import.meta.url),
  routes: new URL('./routes/', import.meta.url),
  settings: PodsSettingsSchema,
  // Names the spec pins outside podhost_*: the tables compute_* (spec "Records") and the provider's URL setting.
  claims: { tables: ['compute_pods'], settings: CLAIMED_SETTINGS },
});
