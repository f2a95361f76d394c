// Starting deploys and roll backs (one of an app in progress at a time: 409), and the deploy history. Each start is
// one transaction: the deploy row, the job that does the work (jobs.ts) and the event.
import { badRequest, conflict, type CoreServices, type EntityManager } from '@quad/core';
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

async function refuseWhileDeploying(em: EntityManager, app: AppRow): Promise<void> {
  const [busy] = await em.execute<{ id: string }[]>(
    "select id from hostprov_deploys where organization_id = ? and app_id = ? and status in ('queued', 'starting') limit 1", [app.organization_id, app.id]);
  if (busy) throw conflict(`A deploy of ${app.name} is in progress (deploy ${busy.id}); wait until it is healthy or failed`, 'deploy_in_progress');
}

interface NewDeploy { tag: string | null; digest: string | null; image: string; manifest: unknown; trigger: DeployTrigger; rollbackOf: number | null; actor: string | null }

/** The deploy row and its job, in the caller's transaction. */
export async function insertDeploy(em: EntityManager, services: CoreServices, app: AppRow, d: NewDeploy): Promise<DeployRow> {
  const [row] = await em.execute<DeployRow[]>(
    `insert into hostprov_deploys (organization_id, app_id, tag, digest, image, manifest, trigger, rollback_of, created_by)
     values (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?) returning *`,
    [app.organization_id, app.id, d.tag, d.digest, d.image, JSON.stringify(d.manifest), d.trigger, d.rollbackOf, d.actor]);
  await services.startJob(em, DEPLOY_JOB, { deploy_id: Number(row!.id) }, { orgId: app.organization_id });
  return row!;
}

/** Deploy a tag or a digest of the app's image with its manifest now (202: the job does the work). */
export async function startDeploy(em: EntityManager, services: CoreServices, orgId: number, name: string, ref: ImageRef, trigger: 'officer' | 'tool', actor: string | null): Promise<DeployView> {
  if ((ref.tag === undefined) === (ref.digest === undefined)) {
    throw badRequest('body: exactly one of tag and digest', 'validation', { field: ref.tag === undefined ? 'body.tag' : 'body.digest' });
  }
  return em.transactional(async (tx) => {
    const app = await findApp(tx, orgId, name, true);
    await refuseWhileDeploying(tx, app);
    const row = await insertDeploy(tx, services, app, {
      tag: ref.tag ?? null, digest: ref.digest ?? null, image: imageOf(app.manifest.image, ref), manifest: app.manifest, trigger, rollbackOf: null, actor,
    });
    await services.emit(tx, {
      orgId, kind: 'hostprov.deploy_started', title: `Deploy of ${name} started: ${row.image}`,
      data: { app: name, deploy_id: Number(row.id), image: row.image },
    });
    return deployView(row);
  });
}

/**
 * The deploy a roll back returns to: the newest healthy deploy older than the current one (older than the deploy
 * the current one rolled back to, when it is a roll back) with another image. Null when there is none.
 */
export async function rollbackTarget(em: EntityManager, app: AppRow): Promise<DeployRow | null> {
  if (app.current_deploy_id === null) return null;
  const [target] = await em.execute<DeployRow[]>(
    `select t.* from hostprov_deploys c join hostprov_deploys t on t.app_id = c.app_id
     where c.id = ? and c.organization_id = ? and t.status = 'healthy' and t.id < coalesce(c.rollback_of, c.id) and t.image <> c.image
     order by t.id desc limit 1`, [app.current_deploy_id, app.organization_id]);
  return target ?? null;
}

/** A deploy of the target's image and manifest, marked as its roll back, with the event; in the caller's transaction. */
export async function insertRollback(em: EntityManager, services: CoreServices, app: AppRow, target: DeployRow, trigger: 'rollback' | 'auto_rollback', actor: string | null): Promise<DeployRow> {
  const row = await insertDeploy(em, services, app, {
    tag: target.tag, digest: target.digest, image: target.image, manifest: target.manifest, trigger, rollbackOf: Number(target.id), actor,
  });
  await services.emit(em, {
    orgId: app.organization_id, kind: 'hostprov.rolled_back',
    title: `${trigger === 'auto_rollback' ? 'Automatic roll back' : 'Roll back'} of ${app.name} to ${target.image}`,
    data: { app: app.name, deploy_id: Number(row.id), rollback_of: Number(target.id), image: target.image, automatic: trigger === 'auto_rollback' },
  });
  return row;
}

/** An officer's or agent's roll back: 409 while a deploy is in progress or when there is no healthy deploy to return to. */
export async function startRollback(em: EntityManager, services: CoreServices, orgId: number, name: string, actor: string | null): Promise<DeployView> {
  return em.transactional(async (tx) => {
    const app = await findApp(tx, orgId, name, true);
    await refuseWhileDeploying(tx, app);
    const target = await rollbackTarget(tx, app);
    if (!target) throw conflict(`${name} has no healthy deploy before the current one to roll back to`, 'no_healthy_deploy');
    return deployView(await insertRollback(tx, services, app, target, 'rollback', actor));
  });
}

/** The app's deploys, newest first: `limit` of them, older than the deploy `before` when given. */
export async function deployHistory(em: EntityManager, orgId: number, name: string, page: { limit?: number; before?: number }) {
  const app = await findApp(em, orgId, name);
  const limit = Math.min(page.limit ?? 20, HISTORY_MAX);
  const rows = await em.execute<DeployRow[]>(
    `select * from hostprov_deploys where organization_id = ? and app_id = ? and (?::bigint is null or id < ?::bigint)
     order by id desc limit ?`, [orgId, app.id, page.before ?? null, page.before ?? null, limit + 1]);
  const deploys = rows.slice(0, limit).map(deployView);
  return { deploys, next_before: rows.length > limit ? deploys[deploys.length - 1]!.id : null };
}
