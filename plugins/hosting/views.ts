// Rows of hostprov_apps and hostprov_deploys as the routes and tools answer them (README "Routes").
import type { AppManifest } from './app-manifest.js';

export type DeployStatus = 'queued' | 'starting' | 'healthy' | 'failed';
export type DeployTrigger = 'officer' | 'tool' | 'rollback' | 'auto_rollback';

export interface DeployRow {
  id: string | number; organization_id: number; app_id: number; tag: string | null; digest: string | null; image: string;
  manifest: AppManifest; status: DeployStatus; trigger: DeployTrigger; rollback_of: string | number | null; error: string | null;
  created_by: string | null; created_at: Date | string; started_at: Date | string | null; health_deadline_at: Date | string | null;
  finished_at: Date | string | null;
}

export interface AppRow {
  id: number; organization_id: number; name: string; manifest: AppManifest; pod_id: string | null;
  current_deploy_id: string | number | null; health_status: 'healthy' | 'unhealthy' | null; health_detail: string | null;
  health_checked_at: Date | string | null; created_by: string | null; created_at: Date | string; updated_at: Date | string;
}

/** An app row with its current deploy and its newest deploy (to_jsonb rows: dates are strings). */
export interface AppWithDeploys extends AppRow { current: DeployRow | null; latest: DeployRow | null }

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function deployView(d: DeployRow) {
  return {
    id: Number(d.id),
    tag: d.tag,
    digest: d.digest,
    image: d.image,
    status: d.status,
    trigger: d.trigger,
    rollback_of: d.rollback_of === null ? null : Number(d.rollback_of),
    error: d.error,
    created_by: d.created_by,
    created_at: iso(d.created_at)!,
    started_at: iso(d.started_at),
    health_deadline_at: iso(d.health_deadline_at),
    finished_at: iso(d.finished_at),
  };
}
export type DeployView = ReturnType<typeof deployView>;

export function appView(a: AppWithDeploys) {
  const inProgress = a.latest && (a.latest.status === 'queued' || a.latest.status === 'starting') ? a.latest : null;
  return {
    name: a.name,
    manifest: a.manifest,
    pod_id: a.pod_id,
    current_deploy: a.current ? deployView(a.current) : null,
    latest_deploy: a.latest ? deployView(a.latest) : null,
    deploying: inProgress !== null,
    health: {
      status: a.current_deploy_id === null ? 'unknown' as const : a.health_status ?? 'unknown' as const,
      detail: a.health_detail,
      checked_at: iso(a.health_checked_at),
    },
    created_by: a.created_by,
    created_at: iso(a.created_at)!,
    updated_at: iso(a.updated_at)!,
  };
}
export type AppView = ReturnType<typeof appView>;
