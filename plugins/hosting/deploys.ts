// Starting deploys and roll backs (one of an app in progress at a time: 409), and the deploy history. Each start is
// one transaction: the deploy row, the job that does the work (jobs.ts) and the event.
import { badRequest, conflict, type CoreServices, type OrgDb } from '@quad/core';
import { findApp } from './apps.js';
import { deployView, type AppRow, type DeployRow, type DeployTrigger, type DeployView } from './views.js';

export const DEPLOY_JOB = 'hostprov.deploy';
export const CHECK_JOB = 'hostprov.check';
export const HEALTH_JOB = 'hostprov.health';
export const HISTORY_MAX = 100;

export interface ImageRef { tag?: string; digest?: string }

/** The reference the provider pulls: repo:tag or repo@digest. */
export function imageOf(repo: string, ref: ImageRef): string {
  return ref.tag !== undefined ? `${repo}:${ref.tag}` : `${repo}@${ref.digest}`;
}

async function refuseWhileDeploying(db: OrgDb, app: AppRow): Promise<void> {
  const busy = await db.one<{ id: string }>`
    select id from hostprov_deploys where ${db.inOrg()} and app_id = ${app.id} and status in ('queued', 'starting') limit 1`;
  if (busy) throw conflict(`A deploy of ${app.name} is in progress (deploy ${busy.id}); wait until it is healthy or failed`, 'deploy_in_progress');
}

interface NewDeploy { tag: string | null; digest: string | null; image: string; manifest: unknown; trigger: DeployTrigger; rollbackOf: number | null; actor: string | null }

/** The deploy row and its job, in the caller's transaction. */
export async function insertDeploy(db: OrgDb, services: CoreServices, app: AppRow, d: NewDeploy): Promise<DeployRow> {
  const [row] = await db.sql<DeployRow>`
    insert into hostprov_deploys (organization_id, app_id, tag, digest, image, manifest, trigger, rollback_of, created_by)
    values (${db.org}, ${app.id}, ${d.tag}, ${d.digest}, ${d.image}, ${JSON.stringify(d.manifest)}::jsonb, ${d.trigger}, ${d.rollbackOf}, ${d.actor})
    returning *`;
  await services.startJob(db.em, DEPLOY_JOB, { deploy_id: Number(row!.id) }, { orgId: db.org });
  return row!;
}

/** Deploy a tag or a digest of the app's image with its manifest now (202: the job does the work). */
export async function startDeploy(db: OrgDb, services: CoreServices, name: string, ref: ImageRef, trigger: 'officer' | 'tool', actor: string | null): Promise<DeployView> {
  if ((ref.tag === undefined) === (ref.digest === undefined)) {
    throw badRequest('body: exactly one of tag and digest', 'validation', { field: ref.tag === undefined ? 'body.tag' : 'body.digest' });
  }
  return db.transaction(async (tx) => {
    const app = await findApp(tx, name, true);
    await refuseWhileDeploying(tx, app);
    const row = await insertDeploy(tx, services, app, {
      tag: ref.tag ?? null, digest: ref.digest ?? null, image: imageOf(app.manifest.image, ref), manifest: app.manifest, trigger, rollbackOf: null, actor,
    });
    await services.emit(tx.em, {
      orgId: tx.org, kind: 'hostprov.deploy_started', title: `Deploy of ${name} started: ${row.image}`,
      data: { app: name, deploy_id: Number(row.id), image: row.image },
    });
    return deployView(row);
  });
}

/**
 * The deploy a roll back returns to: the newest healthy deploy older than the current one (older than the deploy
 * the current one rolled back to, when it is a roll back) with another image. Null when there is none.
 */
export async function rollbackTarget(db: OrgDb, app: AppRow): Promise<DeployRow | null> {
  if (app.current_deploy_id === null) return null;
  return db.one<DeployRow>`
    select t.* from hostprov_deploys c join hostprov_deploys t on t.app_id = c.app_id
    where c.id = ${app.current_deploy_id} and ${db.inOrg('c')} and ${db.inOrg('t')}
      and t.status = 'healthy' and t.id < coalesce(c.rollback_of, c.id) and t.image <> c.image
    order by t.id desc limit 1`;
}

/** A deploy of the target's image and manifest, marked as its roll back, with the event; in the caller's transaction. */
export async function insertRollback(db: OrgDb, services: CoreServices, app: AppRow, target: DeployRow, trigger: 'rollback' | 'auto_rollback', actor: string | null): Promise<DeployRow> {
  const row = await insertDeploy(db, services, app, {
    tag: target.tag, digest: target.digest, image: target.image, manifest: target.manifest, trigger, rollbackOf: Number(target.id), actor,
  });
  await services.emit(db.em, {
    orgId: db.org, kind: 'hostprov.rolled_back',
    title: `${trigger === 'auto_rollback' ? 'Automatic roll back' : 'Roll back'} of ${app.name} to ${target.image}`,
    data: { app: app.name, deploy_id: Number(row.id), rollback_of: Number(target.id), image: target.image, automatic: trigger === 'auto_rollback' },
  });
  return row;
}

/** An officer's or agent's roll back: 409 while a deploy is in progress or when there is no healthy deploy to return to. */
export async function startRollback(db: OrgDb, services: CoreServices, name: string, actor: string | null): Promise<DeployView> {
  return db.transaction(async (tx) => {
    const app = await findApp(tx, name, true);
    await refuseWhileDeploying(tx, app);
    const target = await rollbackTarget(tx, app);
    if (!target) throw conflict(`${name} has no healthy deploy before the current one to roll back to`, 'no_healthy_deploy');
    return deployView(await insertRollback(tx, services, app, target, 'rollback', actor));
  });
}

/** The app's deploys, newest first: `limit` of them, older than the deploy `before` when given. */
export async function deployHistory(db: OrgDb, name: string, page: { limit?: number; before?: number }) {
  const app = await findApp(db, name);
  const limit = Math.min(page.limit ?? 20, HISTORY_MAX);
  const before = page.before ?? null;
  const rows = await db.sql<DeployRow>`
    select * from hostprov_deploys where ${db.inOrg()} and app_id = ${app.id} and (${before}::bigint is null or id < ${before}::bigint)
    order by id desc limit ${limit + 1}`;
  const deploys = rows.slice(0, limit).map(deployView);
  return { deploys, next_before: rows.length > limit ? deploys[deploys.length - 1]!.id : null };
}
