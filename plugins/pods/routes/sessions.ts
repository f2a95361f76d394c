// A pod's sessions (spec "Officer pod routes": GET, POST and DELETE /pods/<pod_id>/sessions, an officer of the org):
// time windows around which the job podhost.schedule (schedule.ts) starts and stops the pod. Creates and deletes
// are audited. Both take the pod row's lock, as the job does, so a run never decides on a half-changed pod.
import { BigId, ErrorBody, Type, type RoutesPlugin } from '@quad/core';
import { findPod } from '../pods.js';
import { Errors, PodParams, SessionBody, SessionOut, officer } from '../schemas.js';
import { insertSession, listSessions, removeSession, SESSIONS_PER_POD, sessionView, sessionWindow } from '../sessions.js';

const PREFIX = '/api/compute/:org/pods/:pod_id/sessions';

const SessionParams = Type.Object({ ...PodParams.properties, id: BigId });

export default (async (app) => {
  app.get(PREFIX, {
    config: officer,
    schema: { tags: ['pods'], summary: 'The pod\'s sessions, by start', params: PodParams, response: { 200: Type.Object({ sessions: Type.Array(SessionOut) }), ...Errors } },
  }, async (request) => {
    const pod = await findPod(request.db, request.params.pod_id);
    return { sessions: (await listSessions(request.db, pod.pod_id)).map(sessionView) };
  });

  app.post(PREFIX, {
    config: officer,
    schema: {
      tags: ['pods'],
      summary: `Add a session: the schedule starts the pod 10 minutes before start_at and stops it after stop_at when no other session is open (at most ${SESSIONS_PER_POD} per pod: 409)`,
      params: PodParams, body: SessionBody, response: { 201: SessionOut, ...Errors, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const session = sessionWindow(request.body, new Date());
    const row = await request.db.transaction(async (tx) => {
      const pod = await findPod(tx, request.params.pod_id, true);
      const made = await insertSession(tx, pod.pod_id, session, request.caller?.actor ?? null);
      await request.audit(tx.em, 'podhost.session_created', {
        pod_id: pod.pod_id, session_id: Number(made.id), start_at: session.start.toISOString(), stop_at: session.stop.toISOString(),
      });
      return made;
    });
    return reply.code(201).send(sessionView(row));
  });

  app.delete(`${PREFIX}/:id`, {
    config: officer,
    schema: {
      tags: ['pods'], summary: 'Remove a session; a pod the schedule started for it is stopped at its next run (unless another session is open)',
      params: SessionParams,
      response: { 200: Type.Object({ id: Type.Integer(), deleted: Type.Boolean(), pod_stop_pending: Type.Boolean({ description: 'the schedule started the pod for it and stops it at its next run, unless another session is open' }) }), ...Errors },
    },
  }, async (request) => {
    const { podStopPending } = await request.db.transaction(async (tx) => {
      const pod = await findPod(tx, request.params.pod_id, true);
      const removed = await removeSession(tx, pod.pod_id, request.params.id);
      await request.audit(tx.em, 'podhost.session_deleted', { pod_id: pod.pod_id, session_id: request.params.id, pod_stop_pending: removed.podStopPending });
      return removed;
    });
    return { id: request.params.id, deleted: true, pod_stop_pending: podStopPending };
  });
}) satisfies RoutesPlugin;
