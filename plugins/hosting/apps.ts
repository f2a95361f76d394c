// App records: list, read, register, change the manifest, delete. Raw SQL names the org in every statement. Delete
// asks the provider to terminate the app's pod first: when it cannot, nothing is deleted.
import { conflict, notFound, type CoreServices, type EntityManager } from '@quad/core';
import { fixedFieldChanged, type AppManifest } from './app-manifest.js';
import { askProvider, requireProvider } from './provider.js';
import { appView, type AppRow, type AppView, type AppWithDeploys } from './views.js';

export const LIMIT_KEY = 'hostprov.apps';
/** More than the limit's default, so a raised limit still lists every app; the page shows no more. */
export const LIST_MAX = 200;
export const problemKey = (app: string) => `hostprov.deploy_failed:${app}`;

const SELECT = `select a.*,
    (select to_jsonb(d) from hostprov_deploys d where d.id = a.current_deploy_id) as current,
    (select to_jsonb(d) from hostprov_deploys d where d.app_id = a.id order by d.id desc limit 1) as latest
  from hostprov_apps a`;

export async function listApps(em: EntityManager, orgId: number): Promise<AppView[]> {
  const rows = await em.execute<AppWithDeploys[]>(`${SELECT} where a.organization_id = ? order by a.name limit ?`, [orgId, LIST_MAX]);
  return rows.map(appView);
}

export const appNotFound = (name: string) => notFound(`No app "${name}" in this org`, 'app_not_found');

/** The app row (locked for the caller's transaction when `lock`), or 404. */
export async function findApp(em: EntityManager, orgId: number, name: string, lock = false): Promise<AppRow> {
  const [row] = await em.execute<AppRow[]>(`select * from hostprov_apps where organization_id = ? and name = ?${lock ? ' for update' : ''}`, [orgId, name]);
  if (!row) throw appNotFound(name);
  return row;
}

export async function getApp(em: EntityManager, orgId: number, name: string): Promise<AppView> {
  const [row] = await em.execute<AppWithDeploys[]>(`${SELECT} where a.organization_id = ? and a.name = ?`, [orgId, name]);
  if (!row) throw appNotFound(name);
  return appView(row);
}

/** Register an app (the count limit is reserved by the caller: the route's countLimit, the tool's reserve). */
export async function registerApp(em: EntityManager, orgId: number, name: string, manifest: AppManifest, actor: string | null): Promise<void> {
  const [made] = await em.execute<{ id: number }[]>(
    `insert into hostprov_apps (organization_id, name, manifest, created_by) values (?, ?, ?::jsonb, ?)
     on conflict (organization_id, name) do nothing returning id`, [orgId, name, JSON.stringify(manifest), actor]);
  if (!made) throw conflict(`The org already has an app named "${name}"`, 'name_taken', { field: 'body.name' });
}

/** Replace the manifest; it applies at the next deploy. Compute and ports are fixed once the app has a pod. */
export async function changeManifest(em: EntityManager, orgId: number, name: string, manifest: AppManifest): Promise<void> {
  const app = await findApp(em, orgId, name, true);
  const fixed = app.pod_id === null ? null : fixedFieldChanged(app.manifest, manifest);
  if (fixed) {
    throw conflict(`${fixed}: the app's pod keeps the compute and ports it was made with; delete the app and register it again to change them`,
      'pod_fixed', { field: fixed });
  }
  await em.execute('update hostprov_apps set manifest = ?::jsonb, updated_at = now() where id = ? and organization_id = ?',
    [JSON.stringify(manifest), app.id, orgId]);
}

/**
 * Delete the app: its pod is terminated at the provider first (400 when the provider refuses or is not connected,
 * 424 when it fails; nothing deleted then), then the app, its deploys and its problem go, with the event, in `em`'s
 * transaction.
 */
export async function deleteApp(em: EntityManager, services: CoreServices, orgId: number, name: string): Promise<{ pod_terminated: string | null }> {
  const app = await findApp(em, orgId, name);
  if (app.pod_id !== null) {
    const provider = await requireProvider(services, em, orgId);
    await askProvider(() => provider.delete(app.pod_id!));
  }
  await em.transactional(async (tx) => {
    const gone = await tx.execute('delete from hostprov_apps where organization_id = ? and id = ? returning id', [orgId, app.id]);
    if (!gone.length) throw appNotFound(name);
    await services.clearProblem(tx, orgId, problemKey(name));
    await services.emit(tx, { orgId, kind: 'hostprov.app_deleted', title: `App ${name} deleted`, data: { app: name, pod_id: app.pod_id } });
  });
  return { pod_terminated: app.pod_id };
}
