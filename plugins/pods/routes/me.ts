// Member pod routes (spec "Member pod routes"): a member's session or CLI token (podhost:connect); each request checks
// membership of the org's server. The running pods they may use, and a certificate for one of them: principal
// gf-<pod_id>, 12 hours, a member's forced into podhost-login (no forwarding), an officer's root; with what checks the
// pod's host (issue 38): the org's host CA and the name the pod's host certificate is for. A pod made before host
// keys were certified is refused (409 host_key_unknown). Each connect is one connection row and one audit entry, in
// one transaction.
import { HttpError, OrgParams, Type, conflict, forbidden, type MachineCaller, type MemberCaller, type RoutesPlugin } from '@quad/core';
import { issueCertificate, parsePublicKey, principalOf } from '../certificates.js';
import { recordConnection } from '../connections.js';
import { requireHostKey } from '../host-keys.js';
import { ensureOrgKeys, orgKeyPair } from '../keys.js';
import { askProvider, findPod, liveStatus, listPods, orgProvider, type PodRow } from '../pods.js';
import { podUser, type PodUser } from '../pod-user.js';
import { ConnectBody, ConnectOut, Errors, MePodOut, PodParams, ProviderErrors, memberOrCli } from '../schemas.js';

const PREFIX = '/api/compute/:org/me/pods';
const ROOT_FOLDER = '/workspace';
/** The pod image puts each member's folder here (the volume, which outlives restarts). */
const memberFolder = (username: string) => `${ROOT_FOLDER}/${username}`;

/** Why the user may connect to the pod, or null. Officers of the org may use every pod of it, as root. */
function accessOf(row: PodRow, user: PodUser): 'officer' | 'public' | 'allowed' | null {
  if (user.isOfficer) return 'officer';
  if (row.is_public) return 'public';
  return row.allowed_users.includes(user.chatUserId) ? 'allowed' : null;
}

export default (async (app) => {
  const services = app.quad;

  app.get(PREFIX, {
    config: memberOrCli,
    schema: { tags: ['pods'], summary: 'The running pods the caller may connect to (public, listing them, or every pod for an officer)', params: OrgParams, response: { 200: Type.Object({ pods: Type.Array(MePodOut) }), ...Errors, 424: ProviderErrors[424], 503: ProviderErrors[503] } },
  }, async (request) => {
    const org = request.org!;
    const user = await podUser(services, org, request.caller as MemberCaller | MachineCaller);
    const rows = (await listPods(request.db)).filter((row) => accessOf(row, user));
    const provider = rows.length ? await orgProvider(services, request.db) : null;
    if (!provider) return { pods: [] };
    const running = new Map((await askProvider(() => provider.list())).filter((p) => p.status === 'RUNNING').map((p) => [p.id, p]));
    return {
      pods: rows.filter((row) => running.has(row.pod_id)).map((row) => ({
        pod_id: row.pod_id, name: running.get(row.pod_id)!.name, kind: row.cpu_flavor !== null ? 'cpu' as const : 'gpu' as const,
        gpu_type_id: row.gpu_type_id, gpu_count: row.gpu_count, cpu_flavor: row.cpu_flavor, vcpu_count: row.vcpu_count,
        status: 'RUNNING', access: accessOf(row, user)!,
      })),
    };
  });

  app.post(`${PREFIX}/:pod_id/connect`, {
    config: memberOrCli,
    schema: {
      tags: ['pods'], summary: 'A 12-hour SSH certificate for the caller\'s public key on one running pod (409 when it is not running)',
      params: PodParams, body: ConnectBody, response: { 200: ConnectOut, ...Errors, ...ProviderErrors },
    },
  }, async (request) => {
    const org = request.org!;
    const { db } = request;
    const key = parsePublicKey(request.body.public_key);
    const row = await findPod(db, request.params.pod_id);
    const user = await podUser(services, org, request.caller as MemberCaller | MachineCaller);
    if (!accessOf(row, user)) throw forbidden('You may not use this pod: ask an officer to add you to it', 'no_pod_access');
    const hostKey = requireHostKey(row);
    const live = await liveStatus(await orgProvider(services, db), row.pod_id);
    if (!('pod' in live)) {
      if (live.status === 'UNKNOWN') throw new HttpError(424, `The pod's state could not be read: ${live.reason}`, 'provider_failed');
      throw conflict('The pod no longer exists at the provider', 'pod_gone');
    }
    if (live.pod.status !== 'RUNNING' || !live.pod.ssh) throw conflict(`The pod is not running (${live.pod.status}): ask an officer to start it`, 'pod_not_running', { status: live.pod.status });
    const ca = await orgKeyPair(services, db, 'user_ca');
    const hostCa = (await ensureOrgKeys(services, db)).host_ca;
    const isAdmin = user.isOfficer;
    const issued = issueCertificate({
      podId: row.pod_id, key, caPrivateKey: ca.privateKey, memberUsername: isAdmin ? null : user.username,
      keyId: `${org.prefix}:${user.chatUserId}:${user.username}${isAdmin ? ':root' : ''}`,
    });
    await db.transaction(async (tx) => {
      await recordConnection(tx, { podId: row.pod_id, chatUserId: user.chatUserId, username: user.username, isAdmin });
      await request.audit(tx.em, 'podhost.connect', {
        pod_id: row.pod_id, chat_user_id: user.chatUserId, username: user.username, is_admin: isAdmin, via: user.via,
        serial: issued.serial, key_fingerprint: key.fingerprint('sha256').toString(),
      });
    });
    return {
      pod_id: row.pod_id, host: live.pod.ssh.host, port: live.pod.ssh.port, user: 'root', username: user.username,
      user_folder: isAdmin ? ROOT_FOLDER : memberFolder(user.username), is_admin: isAdmin, principal: principalOf(row.pod_id),
      certificate: issued.certificate, host_ca: hostCa, host_key_alias: hostKey.alias, valid_after: issued.validFrom.toISOString(), valid_before: issued.validUntil.toISOString(),
    };
  });
}) satisfies RoutesPlugin;
