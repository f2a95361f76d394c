// Who is connected to a pod now (spec "Officer pod routes": GET /pods/<pod_id>/members/connected). One SSH command
// within 5 seconds reads the pod's sessions (sessions.ts); each username maps to the member who last got a
// certificate with it for the pod (compute_connections); names come from the org's Discord server for at most 50
// members. The answer is always one: `unknown` with a reason when the pod's host key is unknown (made before host
// keys were certified), the pod is not running, SSH fails or is too slow (or another host answers at its address), or
// the pod has no podhost-login; names stay null when Discord cannot say.
import type { CoreServices, OrgDb, OrgSnapshot } from '@quad/core';
import type { FastifyBaseLogger } from 'fastify';
import { namesOf } from '../members.js';
import { HOST_KEY_UNKNOWN, knownHostKey } from '../host-keys.js';
import { liveStatus, orgProvider, type PodRow } from '../pods.js';
import { withPodSsh } from './client.js';
import { PodSshFailed } from './errors.js';
import { loginFor, runningAddress } from './pod-login.js';
import { PODHOST_LOGIN, SESSIONS_COMMAND, parseSessions, type ShellSession } from './sessions.js';

/** Spec "Limits": connected-sessions SSH time limit. */
export const CONNECTED_LIMIT_MS = 5_000;

export interface ConnectedSession extends ShellSession {
  chat_user_id: string | null;
  name: string | null;
}

export interface Connected {
  state: 'known' | 'unknown';
  reason: string | null;
  sessions: ConnectedSession[];
}

const unknown = (reason: string): Connected => ({ state: 'unknown', reason, sessions: [] });

/** The pod's connected sessions; the caller has read the pod's row (so it is the org's). */
export async function connectedSessions(services: CoreServices, db: OrgDb, org: OrgSnapshot, pod: PodRow, log: FastifyBaseLogger): Promise<Connected> {
  const podId = pod.pod_id;
  const hostKey = knownHostKey(pod);
  if (!hostKey) return unknown(HOST_KEY_UNKNOWN);
  const running = runningAddress(await liveStatus(await orgProvider(services, db), podId));
  if ('notRunning' in running) return unknown(running.notRunning);
  const login = await loginFor(services, db, running.address, hostKey);

  let output: string;
  try {
    const result = await withPodSsh(login, CONNECTED_LIMIT_MS, (session) => session.exec(SESSIONS_COMMAND));
    if (result.code !== 0 || result.truncated) return unknown('The pod\'s process list could not be read (ps failed on the pod)');
    output = result.stdout;
  } catch (err) {
    if (!(err instanceof PodSshFailed)) throw err;
    log.info({ err: err.cause ?? err, pod: podId }, 'podhost: connected sessions: SSH to the pod failed');
    return unknown(`SSH to the pod failed: ${err.message}`);
  }

  const reading = parseSessions(output);
  if (!reading.podhostLogin) return unknown(`The pod has no ${PODHOST_LOGIN}: its image does not follow the pod image contract`);
  const members = await membersByUsername(db, podId, reading.sessions.map((s) => s.username));
  const names = await namesOf(services.discord, org.discordGuildId, [...members.values()], (err) => log.warn({ err, pod: podId }, 'podhost: names of connected members could not be read from Discord'));
  return {
    state: 'known', reason: null,
    sessions: reading.sessions.map((s) => {
      const chatUserId = members.get(s.username) ?? null;
      return { ...s, chat_user_id: chatUserId, name: chatUserId === null ? null : names.get(chatUserId) ?? null };
    }),
  };
}

/** For each username, the member who last got a certificate with it for this pod. */
async function membersByUsername(db: OrgDb, podId: string, usernames: string[]): Promise<Map<string, string>> {
  if (!usernames.length) return new Map();
  const rows = await db.sql<{ username: string; chat_user_id: string }>`
    select distinct on (username) username, chat_user_id from compute_connections
    where ${db.inOrg()} and pod_id = ${podId} and username = any(${[...new Set(usernames)]}::text[])
    order by username, created_at desc, id desc`;
  return new Map(rows.map((r) => [r.username, r.chat_user_id]));
}
