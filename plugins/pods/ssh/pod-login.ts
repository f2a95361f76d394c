// Where and how the service logs in to one of the org's pods: the pod's SSH address, live from the provider (only a
// RUNNING pod has one), with the org's backend key, to the host key certified for the pod (host-keys.ts). The file
// routes need a running pod with a known host key and answer why not (409); the connected route turns the same "why
// not" into its unknown state.
import { conflict, type CoreServices, type OrgDb } from '@quad/core';
import { requireHostKey, type KnownHostKey } from '../host-keys.js';
import { orgKeyPair } from '../keys.js';
import { askProvider, findPod, requireProvider, type LiveStatus } from '../pods.js';
import type { PodLogin } from './client.js';
import type { SshEndpoint } from '../provider/types.js';
import { MODULE, type PodsSettings } from '../settings.js';

/** The pod's SSH address when it is running, else why not, in a sentence for officers. */
export function runningAddress(live: LiveStatus): { address: SshEndpoint } | { notRunning: string } {
  if (!('pod' in live)) {
    return { notRunning: live.status === 'GONE' ? 'The provider no longer has this pod' : `The pod's status is unknown: ${live.reason}` };
  }
  const { pod } = live;
  if (pod.status !== 'RUNNING') return { notRunning: `The pod is not running (${pod.status}): start it first` };
  if (!pod.ssh) return { notRunning: 'The pod is running but has no SSH address yet: try again in a minute' };
  return { address: pod.ssh };
}

export async function loginFor(services: CoreServices, db: OrgDb, address: SshEndpoint, hostKey: KnownHostKey): Promise<PodLogin> {
  const { privateKey } = await orgKeyPair(services, db, 'backend');
  const { PODHOST_SSH_CONNECT_TIMEOUT_MS: connectTimeoutMs } = services.moduleSettings<PodsSettings>(MODULE);
  return { host: address.host, port: address.port, privateKey, hostKey: hostKey.publicKey, connectTimeoutMs };
}

/**
 * The login to a running pod of the org, for the file routes: 404 for a pod not made here, 409 host_key_unknown for
 * a pod made before host keys were certified, 400 when the org has no provider key, 424 when the provider fails, 409
 * when the pod is not running.
 */
export async function runningPodLogin(services: CoreServices, db: OrgDb, podId: string): Promise<PodLogin> {
  const row = await findPod(db, podId);
  const hostKey = requireHostKey(row);
  const provider = await requireProvider(services, db);
  const pod = await askProvider(() => provider.get(row.pod_id));
  const running = runningAddress(pod ? { pod } : { status: 'GONE' });
  if ('notRunning' in running) throw conflict(running.notRunning, 'pod_not_running', { status: pod?.status ?? 'GONE' });
  return loginFor(services, db, running.address, hostKey);
}
