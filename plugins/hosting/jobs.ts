// The hosting jobs: hostprov.deploy and hostprov.check do a deploy's work (run.ts) on their org's handle;
// hostprov.health (every 5 minutes, no org) checks the live apps' health and fails deploys whose job or checks were
// lost. It finds both across orgs (services.acrossOrgs, short statements that commit before anything slow) and does
// each app's or deploy's work on its org's handle. Bounded work per run, and safe with several workers: apps are
// claimed with `for update skip locked`, stamping health_checked_at, before the slow checks.
import { defineJob, Type, type AcrossOrgsDb, type CoreServices, type OrgDb } from '@quad/core';
import type { AppManifest } from './app-manifest.js';
import { CHECK_JOB, DEPLOY_JOB, HEALTH_JOB } from './deploys.js';
import { checkHealth, type HealthResult } from './health.js';
import { checkDeploy, failDeploy, runDeploy } from './run.js';
import { MODULE, settingsOf } from './settings.js';

const DeployPayload = Type.Object({ deploy_id: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });

export const deployJob = defineJob({
  name: DEPLOY_JOB,
  description: 'Puts a deploy\'s image on the app\'s pod (creating the pod on the first deploy) and starts its health checks',
  payload: DeployPayload,
  // A retried create could make a second pod that bills: one attempt; the 5-minute job fails a deploy it lost.
  maxAttempts: 1,
  async handler({ db, payload, services, log }) {
    const outcome = await runDeploy({ db, services }, payload.deploy_id);
    log.info({ deploy: payload.deploy_id, outcome }, 'hostprov.deploy done');
  },
});

export const checkJob = defineJob({
  name: CHECK_JOB,
  description: 'One health check of a starting deploy through the provider\'s proxy; checks again later until healthy or past its deadline',
  payload: Type.Object({
    deploy_id: Type.Integer({ minimum: 1 }),
    /** The check's time; tests set it to pass a deadline. */
    now: Type.Optional(Type.String({ format: 'date-time' })),
  }, { additionalProperties: false }),
  maxAttempts: 3,
  async handler({ db, payload, services, log }) {
    const outcome = await checkDeploy({ db, services }, payload.deploy_id, payload.now ? new Date(payload.now) : new Date());
    log.info({ deploy: payload.deploy_id, outcome }, 'hostprov.check done');
  },
});

/** A deploy still queued this long after it was made, or starting this long past its deadline, was lost. */
const LOST_AFTER_MINUTES = 15;
const SWEEP_MAX = 20;
/** Checked at most this often by the 5-minute job (a little under its period, so each run finds the last run's). */
const RECHECK_MINUTES = 4;
const PARALLEL_CHECKS = 10;

interface LostDeploy { id: string; organization_id: number; status: string }

/** Deploys of every org lost for LOST_AFTER_MINUTES (at most SWEEP_MAX, oldest first), each with its org's handle. */
function lostDeploys(services: CoreServices, now: Date): Promise<{ deploy: LostDeploy; db: OrgDb }[]> {
  return services.acrossOrgs('hostprov.sweep_lost', async (all) => {
    const lost = await all.sql<LostDeploy>`
      select id, organization_id, status from hostprov_deploys
      where (status = 'queued' and created_at < ${now.toISOString()}::timestamptz - make_interval(mins => ${LOST_AFTER_MINUTES}))
         or (status = 'starting' and health_deadline_at < ${now.toISOString()}::timestamptz - make_interval(mins => ${LOST_AFTER_MINUTES}))
      order by created_at limit ${SWEEP_MAX}`;
    return lost.map((deploy) => ({ deploy, db: all.forOrg(deploy.organization_id) }));
  });
}

/** Fail the lost deploys, each in its org's own transaction (with its automatic roll back). */
async function sweepLost(services: CoreServices, now: Date): Promise<number> {
  const lost = await lostDeploys(services, now);
  for (const { deploy, db } of lost) {
    const why = deploy.status === 'queued' ? 'its deploy job did not finish' : 'its health checks stopped before the deadline';
    await failDeploy({ db, services }, Number(deploy.id), `The deploy was lost (${why}); deploy again`);
  }
  return lost.length;
}

interface Claimed { id: number; organization_id: number; pod_id: string; manifest: AppManifest }

/** Take the apps checked longest ago (of orgs with hosting on, with a live deploy and none in progress). */
async function claimApps(all: AcrossOrgsDb, services: CoreServices, now: Date, batch: number): Promise<Claimed[]> {
  const onByDefault = services.registry.get(MODULE)?.defaultEnabled === true;
  return all.sql<Claimed>`
    update hostprov_apps a set health_checked_at = ${now.toISOString()}::timestamptz
    from hostprov_deploys d
    where d.id = a.current_deploy_id and a.id in (
      select x.id from hostprov_apps x join organizations o on o.id = x.organization_id
      where x.current_deploy_id is not null and x.pod_id is not null
        and coalesce((o.modules ->> 'hostprov')::boolean, ${onByDefault}::boolean)
        and (x.health_checked_at is null or x.health_checked_at < ${now.toISOString()}::timestamptz - make_interval(mins => ${RECHECK_MINUTES}))
        and not exists (select 1 from hostprov_deploys p where p.app_id = x.id and p.status in ('queued', 'starting'))
      order by x.health_checked_at nulls first limit ${batch} for update of x skip locked)
    returning a.id, a.organization_id, a.pod_id, d.manifest`;
}

/** The claim, committed across orgs before any check, each app with its org's handle for its result. */
function claimBatch(services: CoreServices, now: Date, batch: number): Promise<{ app: Claimed; db: OrgDb }[]> {
  return services.acrossOrgs('hostprov.health', async (all) =>
    (await claimApps(all, services, now, batch)).map((app) => ({ app, db: all.forOrg(app.organization_id) })));
}

async function recordHealth(db: OrgDb, appId: number, result: HealthResult): Promise<void> {
  await db.run`
    update hostprov_apps set health_status = ${result.healthy ? 'healthy' : 'unhealthy'}, health_detail = ${result.detail}
    where ${db.inOrg()} and id = ${appId}`;
}

export const healthJob = defineJob({
  name: HEALTH_JOB,
  description: 'Checks the health of each app\'s live deploy (the longest unchecked first, a bounded batch) and fails deploys that were lost',
  cron: '*/5 * * * *',
  payload: Type.Object({ now: Type.Optional(Type.String({ format: 'date-time' })) }, { additionalProperties: false }),
  maxAttempts: 1,
  async handler({ services, payload, log }) {
    const now = payload.now ? new Date(payload.now) : new Date();
    const settings = settingsOf(services);
    const lost = await sweepLost(services, now);
    const apps = await claimBatch(services, now, settings.HOSTPROV_HEALTH_BATCH);
    for (let i = 0; i < apps.length; i += PARALLEL_CHECKS) {
      await Promise.all(apps.slice(i, i + PARALLEL_CHECKS).map(async ({ app, db }) => {
        await recordHealth(db, app.id, await checkHealth(settings, app.pod_id, app.manifest.health));
      }));
    }
    log.info({ checked: apps.length, lost }, 'hostprov.health done');
  },
});

export const hostingJobs = [deployJob, checkJob, healthJob];
