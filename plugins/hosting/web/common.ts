// What the Hosting page's parts share: the records the hosting routes answer (README "Routes"), the routes' base
// path, the refresh after a change, and how dates and statuses are shown. No server code: the bundle carries only
// what the page needs.
import { useCallback, type CSSProperties } from 'react';
import { invalidateApi, useOrg } from '@quad/web/sdk';

export type DeployStatus = 'queued' | 'starting' | 'healthy' | 'failed';
export interface Deploy {
  id: number; tag: string | null; digest: string | null; image: string; status: DeployStatus;
  trigger: 'officer' | 'tool' | 'rollback' | 'auto_rollback'; rollback_of: number | null; error: string | null;
  created_by: string | null; created_at: string; started_at: string | null; health_deadline_at: string | null; finished_at: string | null;
}
export interface Manifest {
  image: string; gpu: { type_id: string; count: number } | null; cpu: { flavor: string; vcpus: number } | null;
  ports: { port: number; protocol: 'http' | 'tcp' }[]; env: Record<string, string>; secret_env: Record<string, string>;
  health: { port: number; path: string; expected_status: number; timeout_seconds: number; deadline_seconds: number };
}
export interface App {
  name: string; manifest: Manifest; pod_id: string | null; current_deploy: Deploy | null; latest_deploy: Deploy | null; deploying: boolean;
  health: { status: 'healthy' | 'unhealthy' | 'unknown'; detail: string | null; checked_at: string | null };
  created_at: string; updated_at: string;
}
export interface Pod {
  pod_id: string; status: string; name: string | null; image: string | null; cost_per_hour: number | null;
  gpu: { type_id: string; count: number } | null; cpu: { flavor: string; vcpus: number } | null;
}

/** The app routes of the current org. */
export function useAppsBase(): string {
  return `/api/dashboard/${useOrg().prefix}/apps`;
}
export const appPath = (base: string, name: string) => `${base}/${encodeURIComponent(name)}`;

/** Read the apps, their deploys and pods again, and the Overview's counts. */
export function useRefresh(): () => Promise<void> {
  const { prefix } = useOrg();
  return useCallback(async () => {
    await Promise.all([invalidateApi(`/api/dashboard/${prefix}/apps`), invalidateApi(`/api/dashboard/${prefix}/overview`)]);
  }, [prefix]);
}

export const STATUS: Record<DeployStatus, string> = { queued: 'Queued', starting: 'Starting (health checks)', healthy: 'Healthy', failed: 'Failed' };
export const TRIGGER: Record<Deploy['trigger'], string> = { officer: 'Deploy', tool: 'Agent', rollback: 'Roll back', auto_rollback: 'Automatic roll back' };

export const when = (iso: string | null, none = '—') => (iso ? new Date(iso).toLocaleString() : none);
export const row: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'flex-start' };
export const actions: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 8, alignItems: 'center' };
export const ok: CSSProperties = { color: 'var(--ok)' };
export const bad: CSSProperties = { color: 'var(--danger)', whiteSpace: 'pre-wrap', wordBreak: 'break-word' };
