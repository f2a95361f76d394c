// GET /api/compute/<org>/pods/<pod_id>/members/connected (spec "Officer pod routes"): who is on the pod now. Always
// 200 for a pod of the org: `unknown` with the reason when it cannot be known (ssh/connected.ts).
import { ErrorBody, Type, type RoutesPlugin } from '@quad/core';
import { findPod } from '../pods.js';
import { Errors, PodParams, officer } from '../schemas.js';
import { NAMES_MAX } from '../members.js';
import { connectedSessions } from '../ssh/connected.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

const ConnectedOut = Type.Object({
  state: Type.Union([Type.Literal('known'), Type.Literal('unknown')]),
  reason: Nullable(Type.String({ description: 'why the state is unknown: the pod\'s host key is unknown (made before host keys were certified: recreate it), the pod is not running, SSH failed or timed out (or another host answered at its address), or the pod has no podhost-login' })),
  sessions: Type.Array(Type.Object({
    username: Type.String({ description: 'the account on the pod (podhost_<username>), or the officer\'s PODHOST_USER' }),
    is_admin: Type.Boolean({ description: 'an officer\'s root shell' }),
    seconds: Type.Integer({ description: 'how long the session has lasted' }),
    chat_user_id: Nullable(Type.String({ description: 'the member who last got a certificate with this username for the pod' })),
    name: Nullable(Type.String({ description: `from the org's server, for at most ${NAMES_MAX} members` })),
  })),
});

export default (async (app) => {
  const services = app.quad;

  app.get('/api/compute/:org/pods/:pod_id/members/connected', {
    config: officer,
    schema: {
      tags: ['pods'],
      summary: 'Who is connected to the pod now (members\' podhost-login sessions and officers\' root shells), read over SSH within 5 seconds; always 200, with state unknown and a reason when it cannot be known',
      params: PodParams, response: { 200: ConnectedOut, ...Errors, 503: ErrorBody },
    },
  }, async (request) => {
    const pod = await findPod(request.db, request.params.pod_id);
    return connectedSessions(services, request.db, request.org!, pod, request.log);
  });
}) satisfies RoutesPlugin;
