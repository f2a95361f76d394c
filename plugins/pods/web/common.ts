// What the Pods page's parts share: the records the pods routes answer (plugins/pods/schemas.ts and routes/), the
// routes' base path, and how a pod's hardware, status and times are shown.
import type { CSSProperties } from 'react';
import { useOrg } from '@quad/web/sdk';

/** A pod as GET /pods and GET /pods/<pod_id> answer it (PodOut). */
export interface Pod {
  pod_id: string; provider: string; name: string; image: string; kind: 'gpu' | 'cpu';
  gpu_type_id: string | null; gpu_count: number | null; cpu_flavor: string | null; vcpu_count: number | null;
  cloud_type: string | null; container_disk_in_gb: number | null; volume_in_gb: number | null; volume_mount_path: string | null;
  env_names: string[]; is_public: boolean; allowed_users: string[];
  status: string; status_reason: string | null; ssh: { host: string; port: number } | null; cost_per_hour: number | null;
  created_by: string | null; created_at: string; updated_at: string;
}
/** A member of the org's server (GET /members). */
export interface Member { id: string; name: string; username: string; avatar: string | null; roles: string[] }
/** GET /pods/<pod_id>/members: who may use the pod, and the last 100 certificates. */
export interface PodMembers {
  access: { is_public: boolean; allowed_users: { chat_user_id: string; name: string | null }[] };
  recent: { chat_user_id: string; name: string | null; username: string; is_admin: boolean; created_at: string }[];
}
/** GET /settings: the org's image, the deployment's PODHOST_POD_IMAGE (null: not set), whether the provider key is set. */
export interface PodSettings { pod_image: string | null; default_image: string | null; provider_connected: boolean }

/** The officer routes of the current org (spec "Officer pod routes"). */
export function usePodsBase(): string {
  return `/api/compute/${useOrg().prefix}`;
}

export const podPath = (base: string, podId: string) => `${base}/pods/${encodeURIComponent(podId)}`;

/** GPU pods: count × type; CPU pods: flavor and vCPUs. */
export function hardware(pod: Pod): string {
  if (pod.kind === 'cpu') return `CPU · ${pod.cpu_flavor ?? '?'}, ${pod.vcpu_count ?? '?'} vCPU`;
  return `GPU · ${pod.gpu_count ?? 1} × ${pod.gpu_type_id ?? '?'}`;
}

export const isRunning = (pod: Pod) => pod.status === 'RUNNING';

export const when = (iso: string | null, none = '—') => (iso ? new Date(iso).toLocaleString() : none);

/** "1 h 5 min", "3 min", "20 s". */
export function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (h) return `${h} h ${m} min`;
  return m ? `${m} min` : `${seconds} s`;
}

export const row: CSSProperties = { display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'flex-start' };
export const actions: CSSProperties = { display: 'inline-flex', flexWrap: 'wrap', gap: 8 };
export const ok: CSSProperties = { color: 'var(--ok)' };
/** A button beside a field: level with its box (the label's height down), not with its hint. */
export const beside: CSSProperties = { marginTop: 24 };
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
