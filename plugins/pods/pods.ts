// Pod records (compute_pods) and the provider behind them: which provider client an org gets (its own API key,
// the org secret hostprov_api_key), how a record and the provider's live view make the answer, and how the
// provider's failures become the spec's statuses (its 4xx: 400 with its reason; its failures: 424).
import { HttpError, badRequest, notFound, sql, type CoreServices, type EntityManager, type IntegrationContext, type OrgDb } from '@quad/core';
import type { KnownHostKey } from './host-keys.js';
import { hostprovProvider } from './provider/hostprov.js';
import { ProviderFailed, ProviderRefused, type PodProvider, type PodSpec, type ProviderPod } from './provider/types.js';
import type { PodAction } from './schemas.js';
import { API_KEY_SECRET, MODULE, PROVIDER, type PodsSettings } from './settings.js';

export interface PodRow {
  id: string; pod_id: string; provider: string; name: string; image: string;
  gpu_type_id: string | null; gpu_count: number | null; cpu_flavor: string | null; vcpu_count: number | null;
  cloud_type: string | null; container_disk_in_gb: number | null; volume_in_gb: number | null; volume_mount_path: string | null;
  env_names: string[]; is_public: boolean; allowed_users: string[]; created_by: string | null; created_at: Date; updated_at: Date;
  /** The pod's certified host key (host-keys.ts); null for a pod made before host keys were certified. Never answered: the connect route gives the alias. */
  host_key_alias: string | null; host_public_key: string | null;
}

/** The provider's view of a pod now: its record of it, GONE, or UNKNOWN with why. */
export type LiveStatus = { pod: ProviderPod } | { status: 'GONE' } | { status: 'UNKNOWN'; reason: string };

const COLUMNS = sql`id, pod_id, provider, name, image, gpu_type_id, gpu_count, cpu_flavor, vcpu_count, cloud_type, container_disk_in_gb,
  volume_in_gb, volume_mount_path, env_names, is_public, allowed_users, created_by, created_at, updated_at, host_key_alias, host_public_key`;

export function podView(row: PodRow, live: LiveStatus) {
  const pod = 'pod' in live ? live.pod : null;
  return {
    pod_id: row.pod_id, provider: row.provider, name: pod?.name ?? row.name, image: pod?.image ?? row.image,
    kind: row.cpu_flavor !== null ? 'cpu' as const : 'gpu' as const,
    gpu_type_id: row.gpu_type_id, gpu_count: row.gpu_count, cpu_flavor: row.cpu_flavor, vcpu_count: row.vcpu_count,
    cloud_type: row.cloud_type, container_disk_in_gb: row.container_disk_in_gb, volume_in_gb: row.volume_in_gb, volume_mount_path: row.volume_mount_path,
    env_names: row.env_names, is_public: row.is_public, allowed_users: row.allowed_users,
    status: pod ? pod.status : (live as { status: string }).status,
    status_reason: 'reason' in live ? live.reason : null,
    ssh: pod?.ssh ?? null, cost_per_hour: pod?.costPerHour ?? null,
    created_by: row.created_by, created_at: new Date(row.created_at).toISOString(), updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** The org's provider client with its API key (read with `em`, bound to `orgId`), or null when it has none. */
export async function providerWithKey(services: CoreServices, em: EntityManager, orgId: number): Promise<PodProvider | null> {
  const apiKey = await services.secrets.get(em, orgId, API_KEY_SECRET);
  if (!apiKey) return null;
  const settings = services.moduleSettings<PodsSettings>(MODULE);
  return hostprovProvider({ baseUrl: settings.HOSTPROV_API_URL, apiKey, timeoutMs: settings.PODHOST_PROVIDER_TIMEOUT_MS });
}

/** The org's provider client, or null when the org has not set its API key (503 without SECRETS_KEY). */
export function orgProvider(services: CoreServices, db: OrgDb): Promise<PodProvider | null> {
  return providerWithKey(services, db.em, db.org);
}

/**
 * The `hostprov` integration's connection test (Explore → Integrations, Test): the cheapest authenticated call, the
 * pod list of the org's account, at HOSTPROV_API_URL (the deployment's URL, not an org's) with the org's key.
 */
export async function testHostprov({ services, values }: IntegrationContext): Promise<string> {
  const settings = services.moduleSettings<PodsSettings>(MODULE);
  const provider = hostprovProvider({ baseUrl: settings.HOSTPROV_API_URL, apiKey: values[API_KEY_SECRET] ?? '', timeoutMs: 15_000 });
  try {
    const pods = await provider.list();
    return `The pod provider accepted the key (${pods.length} pod${pods.length === 1 ? '' : 's'} on the account)`;
  } catch (err) {
    if (err instanceof ProviderRefused && (err.status === 401 || err.status === 403)) throw new Error(`${err.status} from the pod provider: check the API key`);
    if (err instanceof ProviderRefused) throw new Error(`${err.status} from the pod provider: ${err.reason}`);
    throw err; // ProviderFailed: its message says what failed, without the key
  }
}

export const NOT_CONNECTED = `The org has no ${PROVIDER} API key: set ${API_KEY_SECRET} on Explore → Integrations first`;

/** The org's provider, or 400 saying how to connect it. */
export async function requireProvider(services: CoreServices, db: OrgDb): Promise<PodProvider> {
  const provider = await orgProvider(services, db);
  if (!provider) throw badRequest(NOT_CONNECTED, 'provider_not_connected');
  return provider;
}

/** A provider failure as the spec's answer: its refusal is 400 with its reason, its failure 424. */
export function providerError(err: unknown): unknown {
  if (err instanceof ProviderRefused) {
    const hint = err.status === 401 || err.status === 403 ? ` (check the org's ${API_KEY_SECRET} on Explore → Integrations)` : '';
    return new HttpError(400, `The pod provider refused: ${err.reason}${hint}`, 'provider_refused', { provider_status: err.status });
  }
  if (err instanceof ProviderFailed) return new HttpError(424, err.message, 'provider_failed');
  return err;
}

/** Run a provider call; its errors become the spec's answers. */
export async function askProvider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw providerError(err);
  }
}

export async function listPods(db: OrgDb): Promise<PodRow[]> {
  return db.sql<PodRow>`select ${COLUMNS} from compute_pods where ${db.inOrg()} order by created_at desc, id desc`;
}

/** The org's pod (locked for the caller's transaction when `lock`), or 404. */
export async function findPod(db: OrgDb, podId: string, lock = false): Promise<PodRow> {
  const row = await db.one<PodRow>`select ${COLUMNS} from compute_pods where ${db.inOrg()} and pod_id = ${podId}${lock ? sql` for update` : sql``}`;
  if (!row) throw notFound(`No pod ${podId} in this org`, 'pod_not_found');
  return row;
}

/** Live status of many pods with one list call; a pod missing from the provider's list is GONE. */
export async function liveStatuses(provider: PodProvider | null, rows: PodRow[]): Promise<Map<string, LiveStatus>> {
  const out = new Map<string, LiveStatus>();
  if (!provider) {
    for (const row of rows) out.set(row.pod_id, { status: 'UNKNOWN', reason: NOT_CONNECTED });
    return out;
  }
  try {
    const byId = new Map((await provider.list()).map((p) => [p.id, p]));
    for (const row of rows) {
      const pod = byId.get(row.pod_id);
      out.set(row.pod_id, pod ? { pod } : { status: 'GONE' });
    }
  } catch (err) {
    const reason = unknownReason(err);
    for (const row of rows) out.set(row.pod_id, { status: 'UNKNOWN', reason });
  }
  return out;
}

/** The org's pods as answers, with one list call to the provider (none for an org without pods). */
export async function podsWithStatus(services: CoreServices, db: OrgDb) {
  const rows = await listPods(db);
  if (!rows.length) return [];
  const live = await liveStatuses(await orgProvider(services, db), rows);
  return rows.map((row) => podView(row, live.get(row.pod_id)!));
}

/** Live status of one pod (a failing provider is UNKNOWN with why, not a failed read). */
export async function liveStatus(provider: PodProvider | null, podId: string): Promise<LiveStatus> {
  if (!provider) return { status: 'UNKNOWN', reason: NOT_CONNECTED };
  try {
    const pod = await provider.get(podId);
    return pod ? { pod } : { status: 'GONE' };
  } catch (err) {
    return { status: 'UNKNOWN', reason: unknownReason(err) };
  }
}

/** Why the provider could not say: its own refusal or failure, in the words an answer would use; anything else is ours and thrown. */
function unknownReason(err: unknown): string {
  if (!(err instanceof ProviderRefused || err instanceof ProviderFailed)) throw err;
  return (providerError(err) as Error).message;
}

/** The pod's row; `spec.env` is the officer's (its names are kept), `hostKey` the public part of its certified host key. */
export async function insertPod(db: OrgDb, pod: ProviderPod, spec: PodSpec, access: { is_public: boolean; allowed_users: string[] }, createdBy: string | null, hostKey: KnownHostKey): Promise<PodRow> {
  const [row] = await db.sql<PodRow>`
    insert into compute_pods (organization_id, provider, pod_id, name, image, gpu_type_id, gpu_count, cpu_flavor, vcpu_count, cloud_type,
      container_disk_in_gb, volume_in_gb, volume_mount_path, env_names, is_public, allowed_users, created_by, host_key_alias, host_public_key)
    values (${db.org}, ${PROVIDER}, ${pod.id}, ${spec.name}, ${spec.image}, ${spec.gpu?.typeId ?? null}, ${spec.gpu?.count ?? null},
      ${spec.cpu?.flavor ?? null}, ${spec.cpu?.vcpus ?? null}, ${spec.cloudType ?? null}, ${spec.containerDiskGb ?? null},
      ${spec.volume?.sizeGb ?? null}, ${spec.volume?.mountPath ?? null}, ${Object.keys(spec.env)}::text[], ${access.is_public},
      ${access.allowed_users}::text[], ${createdBy}, ${hostKey.alias}, ${hostKey.publicKey})
    returning ${COLUMNS}`;
  return row!;
}

export async function updateAccess(db: OrgDb, podId: string, access: { is_public?: boolean; allowed_users?: string[] }): Promise<PodRow> {
  const row = await db.one<PodRow>`
    update compute_pods set is_public = coalesce(${access.is_public ?? null}::boolean, is_public),
      allowed_users = coalesce(${access.allowed_users ?? null}::text[], allowed_users), updated_at = now()
    where ${db.inOrg()} and pod_id = ${podId} returning ${COLUMNS}`;
  if (!row) throw notFound(`No pod ${podId} in this org`, 'pod_not_found');
  return row;
}

const PAST: Record<PodAction, string> = { start: 'started', stop: 'stopped', restart: 'restarted', terminate: 'terminated' };
/** The event (and audit action) of a pod action: podhost.pod_started… */
export const actionEvent = (action: PodAction) => `podhost.pod_${PAST[action]}`;

/** Ask the provider for an action on the org's pod (its refusal 400, its failure 424). */
export async function providerAction(provider: PodProvider, row: PodRow, action: PodAction): Promise<void> {
  await askProvider(() => (action === 'terminate' ? provider.delete(row.pod_id) : provider[action](row.pod_id)));
}

/** After the provider did it, in the caller's transaction: terminate's bookkeeping and the pod's event. */
export async function recordPodAction(services: CoreServices, db: OrgDb, row: PodRow, action: PodAction, data: Record<string, unknown> = {}): Promise<void> {
  if (action === 'terminate') await deletePod(db, row.pod_id);
  await services.emit(db.em, { orgId: db.org, kind: actionEvent(action), title: `Pod ${row.name} ${PAST[action]}`, data: { pod_id: row.pod_id, name: row.name, ...data } });
}

/** Terminate's bookkeeping: the record and its connection rows (spec "States and transitions"). */
export async function deletePod(db: OrgDb, podId: string): Promise<void> {
  await db.run`delete from compute_connections where ${db.inOrg()} and pod_id = ${podId}`;
  await db.run`delete from compute_pods where ${db.inOrg()} and pod_id = ${podId}`;
}
