// The work of a deploy, done by jobs (jobs.ts), never in a request:
//   hostprov.deploy: resolves the secret env, creates the app's pod on its first deploy (or when the provider lost
//     it) or updates its image and env, and moves the deploy to `starting` with its health deadline;
//   hostprov.check: one health check through the provider's proxy; healthy makes the deploy the app's current one,
//     past the deadline fails it, otherwise it checks again HOSTPROV_HEALTH_POLL_SECONDS later (a new run);
//   a failed deploy (provider refusal or failure, missing secret, never healthy) raises the app's problem and, unless
//     it was itself an automatic roll back, rolls back to the app's current (last healthy) deploy.
// Each step writes its state with a condition on the state it expects, so a repeated run changes nothing. Every
// statement is on the org's handle (a job's `db`, or the 5-minute job's handle of the org a sweep found); no
// transaction is open while the provider or the health check is asked.
import type { CoreServices, OrgDb } from '@quad/core';
import { SECRET_PREFIX, type AppManifest } from './app-manifest.js';
import { problemKey } from './apps.js';
import { CHECK_JOB, insertRollback } from './deploys.js';
import { checkHealth } from './health.js';
import { isProviderError, NOT_CONNECTED, orgProvider, type PodProvider, type PodSpec } from './provider.js';
import { settingsOf } from './settings.js';
import type { AppRow, DeployRow } from './views.js';

export interface RunContext { db: OrgDb; services: CoreServices }

async function loadDeploy(db: OrgDb, deployId: number): Promise<{ deploy: DeployRow; app: AppRow } | null> {
  const row = await db.one<DeployRow & { app: AppRow }>`
    select d.*, to_jsonb(a) as app from hostprov_deploys d join hostprov_apps a on a.id = d.app_id
    where ${db.inOrg('d')} and d.id = ${deployId}`;
  if (!row) return null;
  const { app, ...deploy } = row;
  return { deploy: deploy as DeployRow, app };
}

/** The app's environment for this deploy: env plus each secret_env value from its org secret. */
async function resolveEnv(ctx: RunContext, manifest: AppManifest): Promise<{ env: Record<string, string> } | { error: string }> {
  const wanted = Object.entries(manifest.secret_env);
  if (!wanted.length) return { env: { ...manifest.env } };
  let values: Map<string, string>;
  try {
    values = await ctx.services.secrets.values(ctx.db.em, ctx.db.org, wanted.map(([, key]) => `${SECRET_PREFIX}${key}`));
  } catch (err) {
    return { error: `The secret env could not be read: ${(err as Error).message}` };
  }
  const missing = wanted.filter(([, key]) => !values.has(`${SECRET_PREFIX}${key}`));
  if (missing.length) {
    return { error: `secret_env ${missing.map(([env, key]) => `${env} needs the org secret ${SECRET_PREFIX}${key}`).join(', ')}, which is not set: set it on Settings → Secrets and deploy again` };
  }
  return { env: { ...manifest.env, ...Object.fromEntries(wanted.map(([env, key]) => [env, values.get(`${SECRET_PREFIX}${key}`)!])) } };
}

function podSpec(app: AppRow, deploy: DeployRow, env: Record<string, string>): PodSpec {
  const m = deploy.manifest;
  return {
    name: `hostprov-${app.name}`,
    image: deploy.image,
    ...(m.gpu ? { gpu: { typeId: m.gpu.type_id, count: m.gpu.count } } : {}),
    ...(m.cpu ? { cpu: { flavor: m.cpu.flavor, vcpus: m.cpu.vcpus } } : {}),
    env,
    ports: m.ports.map((p) => `${p.port}/${p.protocol}`),
  };
}

/** Make the app's pod and record it on the app; a pod made for an app deleted meanwhile is terminated again. */
async function createPod(ctx: RunContext, provider: PodProvider, app: AppRow, spec: PodSpec): Promise<boolean> {
  const pod = await provider.create(spec);
  // Recorded at once (its own statement): a later failure of this run must not lose a pod that bills.
  const { db } = ctx;
  const kept = await db.run`update hostprov_apps set pod_id = ${pod.id}, updated_at = now() where ${db.inOrg()} and id = ${app.id}`;
  if (!kept) await provider.delete(pod.id).catch(() => undefined);
  return kept > 0;
}

const providerMessage = (err: unknown) => {
  if (!isProviderError(err)) throw err;
  return err.kind === 'refused' ? `The pod provider refused: ${err.reason ?? err.message}` : err.message;
};

/** hostprov.deploy: put the deploy's image on the app's pod and start the health checks. A summary for the log. */
export async function runDeploy(ctx: RunContext, deployId: number): Promise<string> {
  const { db, services } = ctx;
  // Taken once: a second run of the same job finds it started.
  const claimed = await db.run`update hostprov_deploys set started_at = now() where ${db.inOrg()} and id = ${deployId} and status = 'queued' and started_at is null`;
  if (!claimed) return 'not queued any more';
  const loaded = await loadDeploy(db, deployId);
  if (!loaded) return 'gone';
  const { deploy, app } = loaded;
  const resolved = await resolveEnv(ctx, deploy.manifest);
  if ('error' in resolved) return failDeploy(ctx, deployId, resolved.error);
  const provider = await orgProvider(services, db);
  if (!provider) return failDeploy(ctx, deployId, NOT_CONNECTED);
  const spec = podSpec(app, deploy, resolved.env);
  try {
    if (app.pod_id === null) {
      if (!(await createPod(ctx, provider, app, spec))) return 'the app was deleted';
    } else {
      try {
        await provider.update(app.pod_id, { image: spec.image, env: spec.env });
      } catch (err) {
        // The provider lost the pod (terminated elsewhere): a new one takes its place.
        if (!(isProviderError(err) && err.kind === 'refused' && err.status === 404)) throw err;
        if (!(await createPod(ctx, provider, app, spec))) return 'the app was deleted';
      }
    }
  } catch (err) {
    return failDeploy(ctx, deployId, providerMessage(err));
  }
  const poll = settingsOf(services).HOSTPROV_HEALTH_POLL_SECONDS;
  await db.transaction(async (tx) => {
    const started = await tx.run`
      update hostprov_deploys set status = 'starting', health_deadline_at = now() + make_interval(secs => ${deploy.manifest.health.deadline_seconds})
      where ${tx.inOrg()} and id = ${deployId} and status = 'queued'`;
    if (started) await services.startJob(tx.em, CHECK_JOB, { deploy_id: deployId }, { orgId: tx.org, runAt: new Date(Date.now() + poll * 1000) });
  });
  return 'starting';
}

/** hostprov.check: one health check of a starting deploy. `now` decides whether its deadline has passed. */
export async function checkDeploy(ctx: RunContext, deployId: number, now: Date): Promise<string> {
  const { db, services } = ctx;
  const loaded = await loadDeploy(db, deployId);
  if (!loaded || loaded.deploy.status !== 'starting') return 'not starting';
  const { deploy, app } = loaded;
  if (app.pod_id === null) return failDeploy(ctx, deployId, 'The app has no pod');
  const settings = settingsOf(services);
  const health = deploy.manifest.health;
  const result = await checkHealth(settings, app.pod_id, health);
  if (result.healthy) return markHealthy(ctx, deploy, app, result.detail);
  if (now.getTime() >= new Date(deploy.health_deadline_at!).getTime()) {
    return failDeploy(ctx, deployId, `Not healthy within ${health.deadline_seconds} s: ${result.detail}`);
  }
  await db.transaction(async (tx) => {
    await tx.run`update hostprov_apps set health_status = 'unhealthy', health_detail = ${result.detail}, health_checked_at = now() where ${tx.inOrg()} and id = ${app.id}`;
    await services.startJob(tx.em, CHECK_JOB, { deploy_id: deployId }, { orgId: tx.org, runAt: new Date(Date.now() + settings.HOSTPROV_HEALTH_POLL_SECONDS * 1000) });
  });
  return `not healthy yet: ${result.detail}`;
}

async function markHealthy(ctx: RunContext, deploy: DeployRow, app: AppRow, detail: string): Promise<string> {
  const { services } = ctx;
  const orgId = ctx.db.org;
  await ctx.db.transaction(async (tx) => {
    const done = await tx.run`update hostprov_deploys set status = 'healthy', finished_at = now() where ${tx.inOrg()} and id = ${deploy.id} and status = 'starting'`;
    if (!done) return;
    await tx.run`
      update hostprov_apps set current_deploy_id = ${deploy.id}, health_status = 'healthy', health_detail = ${detail}, health_checked_at = now(), updated_at = now()
      where ${tx.inOrg()} and id = ${app.id}`;
    await services.emit(tx.em, {
      orgId, kind: 'hostprov.deployed', title: `${app.name} is live: ${deploy.image}`,
      data: { app: app.name, deploy_id: Number(deploy.id), image: deploy.image, rollback_of: deploy.rollback_of === null ? null : Number(deploy.rollback_of) },
    });
    await services.clearProblem(tx.em, orgId, problemKey(app.name));
  });
  return 'healthy';
}

/**
 * Fail a queued or starting deploy with `message`: the event and the app's problem, and the automatic roll back to
 * the app's current (last healthy) deploy when it has one and the failed deploy was not itself an automatic roll back.
 */
export async function failDeploy(ctx: RunContext, deployId: number, message: string): Promise<string> {
  const { services } = ctx;
  const orgId = ctx.db.org;
  return ctx.db.transaction(async (tx) => {
    const failed = await tx.one<DeployRow>`
      update hostprov_deploys set status = 'failed', error = ${message}, finished_at = now()
      where ${tx.inOrg()} and id = ${deployId} and status in ('queued', 'starting') returning *`;
    if (!failed) return 'not in progress';
    const app = await tx.one<AppRow>`select * from hostprov_apps where ${tx.inOrg()} and id = ${failed.app_id} for update`;
    const current = app && app.current_deploy_id !== null && failed.trigger !== 'auto_rollback'
      ? await tx.one<DeployRow>`select * from hostprov_deploys where ${tx.inOrg()} and id = ${app.current_deploy_id}`
      : null;
    const rollback = current ? await insertRollback(tx, services, app!, current, 'auto_rollback', null) : null;
    const name = app?.name ?? String(failed.app_id);
    const then = rollback ? ` Rolling back to ${current!.image} (deploy ${Number(current!.id)}).` : '';
    await services.emit(tx.em, {
      orgId, kind: 'hostprov.deploy_failed', title: `Deploy of ${name} failed: ${failed.image}`, message: `${message}${then}`,
      data: { app: name, deploy_id: Number(failed.id), image: failed.image, error: message, rollback_deploy_id: rollback ? Number(rollback.id) : null },
    });
    await services.raiseProblem(tx.em, {
      orgId, key: problemKey(name), title: `Deploy of ${name} failed`, message: `${failed.image}: ${message}${then}`,
      data: { app: name, deploy_id: Number(failed.id) },
    });
    return `failed: ${message}`;
  });
}
