// The hosting tools for agents (machine tokens with hostprov:read or hostprov:manage while the module is on; the
// core checks both and binds the org): list apps, read one with its deploys, deploy, roll back (with confirm).
import { defineTool, Type } from '@quad/core';
import { getApp, listApps } from './apps.js';
import { deployHistory, rollbackTarget, startDeploy, startRollback } from './deploys.js';
import { findApp } from './apps.js';
import { AppName, AppOut, DeployOut, Digest, HistoryOut, Tag } from './schemas.js';

const READ = 'hostprov:read';
const MANAGE = 'hostprov:manage';

export const appsTool = defineTool({
  name: 'hostprov.apps',
  title: 'List the org\'s hosted apps',
  description: 'The org\'s hosted apps (each runs as a pod on the org\'s provider account) with their manifest, the live (current) deploy, '
    + 'a deploy in progress and the last health check. Example: {}',
  scope: READ,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ apps: Type.Array(AppOut) }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ db }) {
    return { apps: await listApps(db) };
  },
});

export const appTool = defineTool({
  name: 'hostprov.app',
  title: 'One hosted app with its deploys',
  description: 'One app by name with its current deploy and health, and its last 20 deploys newest first (status queued, starting, healthy '
    + 'or failed, with the error of a failed one). Example: {"name": "site"}',
  scope: READ,
  input: Type.Object({ name: AppName }, { additionalProperties: false }),
  output: Type.Object({ app: AppOut, deploys: HistoryOut.properties.deploys }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ db }, input) {
    const app = await getApp(db, input.name);
    return { app, deploys: (await deployHistory(db, input.name, { limit: 20 })).deploys };
  },
});

export const deployTool = defineTool({
  name: 'hostprov.deploy',
  title: 'Deploy a hosted app',
  description: 'Deploys a tag or a digest (exactly one) of the app\'s image with its manifest: the first deploy creates the app\'s pod, later '
    + 'ones update it. It runs in the background: follow it with hostprov.app (starting, then healthy; a deploy never healthy by its '
    + 'deadline fails and the app rolls back to its last healthy deploy). An error while another deploy of the app is in progress. '
    + 'Example: {"name": "site", "tag": "v1.2.0"}',
  scope: MANAGE,
  input: Type.Object({ name: AppName, tag: Type.Optional(Tag), digest: Type.Optional(Digest) }, { additionalProperties: false }),
  output: DeployOut,
  annotations: { destructive: false, idempotent: false },
  async handler({ db, services, caller }, { name, ...ref }) {
    return startDeploy(db, services, name, ref, 'tool', caller.actor);
  },
});

export const rollbackTool = defineTool({
  name: 'hostprov.rollback',
  title: 'Roll back a hosted app',
  description: 'Puts the app back on its last healthy deploy before the current one (the image and manifest of that deploy). Without '
    + 'confirm it answers which deploy it would return to. An error when there is none or a deploy is in progress. Example: {"name": "site", "confirm": true}',
  scope: MANAGE,
  input: Type.Object({ name: AppName }, { additionalProperties: false }),
  output: DeployOut,
  annotations: { destructive: true, idempotent: false },
  confirm: true,
  async preview({ db }, input) {
    const app = await findApp(db, input.name);
    const target = await rollbackTarget(db, app);
    return { app: input.name, roll_back_to: target ? { deploy_id: Number(target.id), image: target.image } : null };
  },
  async handler({ db, services, caller }, input) {
    return startRollback(db, services, input.name, caller.actor);
  },
});

export const hostingTools = [appsTool, appTool, deployTool, rollbackTool];
