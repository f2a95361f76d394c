// The pods tools (for machine tokens over MCP and /api/tools): an agent tells members which pods run and when the
// next session is, and, with podhost:manage, starts or stops a pod and plans its sessions, as an officer would.
// Terminating a pod and who may use it stay with officers (routes only): an agent cannot delete a pod or widen access.
import { Type, defineTool } from '@quad/core';
import { findPod, podsWithStatus, providerAction, recordPodAction, requireProvider } from './pods.js';
import { PodIdPattern, PodOut, SessionBody, SessionOut } from './schemas.js';
import { insertSession, listSessions, removeSession, sessionView, sessionWindow } from './sessions.js';

const PodId = { pod_id: Type.String({ pattern: PodIdPattern, description: 'the pod\'s id (from podhost.pods)' }) };

export const podsTool = defineTool({
  name: 'podhost.pods',
  title: 'List the org\'s pods',
  description: 'The org\'s GPU and CPU pods with their live status from the provider (RUNNING, EXITED…; GONE when the provider no longer '
    + 'has it; UNKNOWN with status_reason when it cannot be asked), hardware, who may use them (is_public, allowed_users) and cost. Example: {}',
  scope: 'podhost:read',
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ pods: Type.Array(PodOut) }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ db, services }) {
    return { pods: await podsWithStatus(services, db) };
  },
});

export const sessionsTool = defineTool({
  name: 'podhost.sessions',
  title: 'List a pod\'s sessions',
  description: 'The time windows a pod is booked for, by start: the pod is started 10 minutes before each and stopped after the last open one '
    + 'ends. Example: {"pod_id": "abc123xyz"}',
  scope: 'podhost:read',
  input: Type.Object(PodId, { additionalProperties: false }),
  output: Type.Object({ sessions: Type.Array(SessionOut) }),
  annotations: { readOnly: true, idempotent: true },
  async handler({ db }, input) {
    const pod = await findPod(db, input.pod_id);
    return { sessions: (await listSessions(db, pod.pod_id)).map(sessionView) };
  },
});

export const podActionTool = defineTool({
  name: 'podhost.pod_action',
  title: 'Start, stop or restart a pod',
  description: 'Asks the provider to start, stop (only its disk is billed while stopped) or restart one of the org\'s pods. The provider\'s '
    + 'refusal (e.g. starting a running pod) and failures are errors. Example: {"pod_id": "abc123xyz", "action": "stop"}',
  scope: 'podhost:manage',
  input: Type.Object({ ...PodId, action: Type.Union([Type.Literal('start'), Type.Literal('stop'), Type.Literal('restart')]) }, { additionalProperties: false }),
  output: Type.Object({ pod_id: Type.String(), action: Type.String() }),
  async handler({ db, services }, input) {
    const row = await findPod(db, input.pod_id);
    await providerAction(await requireProvider(services, db), row, input.action);
    await recordPodAction(services, db, row, input.action, { by: 'tool' });
    return { pod_id: row.pod_id, action: input.action };
  },
});

export const addSessionTool = defineTool({
  name: 'podhost.add_session',
  title: 'Book a pod for a session',
  description: 'Adds a session (24 hours or less; times ISO 8601 with a time zone): the schedule starts the pod 10 minutes before start_at '
    + 'and stops it after stop_at unless another session is open. Example: {"pod_id": "abc123xyz", "title": "Workshop", '
    + '"start_at": "2030-06-01T18:00:00+02:00", "stop_at": "2030-06-01T21:00:00+02:00"}',
  scope: 'podhost:manage',
  input: Type.Object({ ...PodId, ...SessionBody.properties }, { additionalProperties: false }),
  output: SessionOut,
  async handler({ db, caller }, { pod_id, ...body }) {
    const session = sessionWindow(body, new Date());
    const pod = await findPod(db, pod_id, true);
    return sessionView(await insertSession(db, pod.pod_id, session, caller.actor));
  },
});

export const deleteSessionTool = defineTool({
  name: 'podhost.delete_session',
  title: 'Cancel a pod\'s session',
  description: 'Removes a session; a pod the schedule started for it is stopped at its next run unless another session is open. '
    + 'Example: {"pod_id": "abc123xyz", "id": 42}',
  scope: 'podhost:manage',
  input: Type.Object({ ...PodId, id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }, { additionalProperties: false }),
  output: Type.Object({ id: Type.Integer(), deleted: Type.Boolean(), pod_stop_pending: Type.Boolean() }),
  annotations: { destructive: true, idempotent: false },
  async handler({ db }, input) {
    const pod = await findPod(db, input.pod_id, true);
    const removed = await removeSession(db, pod.pod_id, input.id);
    return { id: input.id, deleted: true, pod_stop_pending: removed.podStopPending };
  },
});

export const podsTools = [podsTool, sessionsTool, podActionTool, addSessionTool, deleteSessionTool];
