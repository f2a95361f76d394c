// App records: list, read, register, change the manifest, delete, on the org's handle (`db`: every statement bound to
// the org, and naming it). Delete asks the provider to terminate the app's pod first: when it cannot, nothing is
// deleted.
import { conflict, notFound, sql, type CoreServices, type OrgDb } from '@quad/core';
import { fixedFieldChanged, type AppManifest } from './app-manifest.js';
import { askProvider, requireProvider } from './provider.js';
import { appView, type AppRow, type AppView, type AppWithDeploys } from './views.js';

export const LIMIT_KEY = 'hostprov.apps';
/** More than the limit's default, so a raised limit still lists every app; the page shows no more. */
export const LIST_MAX = 200;
export const problemKey = (app: string) => `hostprov.deploy_failed:${app}`;

const SELECT = sql`select a.*,
    (select to_jsonb(d) from hostprov_deploys d where d.id = a.current_deploy_id) as current,
    (select to_jsonb(d) from hostprov_deploys d where d.app_id = a.id order by d.id desc limit 1) as latest
  from hostprov_apps a`;

export async function listApps(db: OrgDb): Promise<AppView[]> {
  const rows = await db.sql<AppWithDeploys>`${SELECT} where ${db.inOrg('a')} order by a.name limit ${LIST_MAX}`;
  return rows.map(appView);
}

export const appNotFound = (name: string) => notFound(`No app "${name}" in this org`, 'app_not_found');

/** The app row (locked for the caller's transaction when `lock`), or 404. */
export async function findApp(db: OrgDb, name: string, lock = false): Promise<AppRow> {
  const row = await db.one<AppRow>`select * from hostprov_apps where ${db.inOrg()} and name = ${name}${lock ? sql` for update` : sql``}`;
  if (!row) throw appNotFound(name);
  return row;
}

export async function getApp(db: OrgDb, name: string): Promise<AppView> {
  const row = await db.one<AppWithDeploys>`${SELECT} where ${db.inOrg('a')} and a.name = ${name}`;
  if (!row) throw appNotFound(name);
  return appView(row);
}

/** Register an app (the count limit is reserved by the caller: the route's countLimit, the tool's reserve). */
export async function registerApp(db: OrgDb, name: string, manifest: AppManifest, actor: string | null): Promise<void> {
  const made = await db.run`
    insert into hostprov_apps (organization_id, name, manifest, created_by) values (${db.org}, ${name}, ${JSON.stringify(manifest)}::jsonb, ${actor})
    on conflict (organization_id, name) do nothing`;
  if (!made) throw conflict(`The org already has an app named "${name}"`, 'name_taken', { field: 'body.name' });
}

/** Replace the manifest; it applies at the next deploy. Compute and ports are fixed once the app has a pod. */
export async function changeManifest(db: OrgDb, name: string, manifest: AppManifest): Promise<void> {
  const app = await findApp(db, name, true);
  const fixed = app.pod_id === null ? null : fixedFieldChanged(app.manifest, manifest);
  if (fixed) {
    throw conflict(`${fixed}: the app's pod keeps the compute and ports it was made with; delete the app and register it again to change them`,
      'pod_fixed', { field: fixed });
  }
  await db.run`update hostprov_apps set manifest = ${JSON.stringify(manifest)}::jsonb, updated_at = now() where ${db.inOrg()} and id = ${app.id}`;
}

/**
 * Delete the app: its pod is terminated at the provider first (400 when the provider refuses or is not connected,
 * 424 when it fails; nothing deleted then), then the app, its deploys and its problem go, with the event, in one
 * transaction of the org.
 */
export async function deleteApp(db: OrgDb, services: CoreServices, name: string): Promise<{ pod_terminated: string | null }> {
  const orgId = db.org;
  const app = await findApp(db, name);
  if (app.pod_id !== null) {
    const provider = await requireProvider(services, db);
    await askProvider(() => provider.delete(app.pod_id!));
  }
  await db.transaction(async (tx) => {
    const gone = await tx.run`delete from hostprov_apps where ${tx.inOrg()} and id = ${app.id}`;
    if (!gone) throw appNotFound(name);
    await services.clearProblem(tx.em, orgId, problemKey(name));
    await services.emit(tx.em, { orgId, kind: 'hostprov.app_deleted', title: `App ${name} deleted`, data: { app: name, pod_id: app.pod_id } });
  });
  return { pod_terminated: app.pod_id };
}
