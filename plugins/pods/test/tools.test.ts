// The pods tools over /api/tools/call with machine tokens: podhost.pods and podhost.sessions with podhost:read;
// podhost.pod_action, podhost.add_session and podhost.delete_session with podhost:manage (events and audit as the
// routes'); a read token cannot act; errors as the routes answer them (404 pod, 400 bad time, provider refusal); the
// pod list carries no host key.
import t from 'tap';
import { bearer } from '@quad/core/testing';
import { startPodsWorld } from './world.js';

const w = await startPodsWorld(t);
const { quad, org, fake } = w;
const podId = await w.createPod({ gpu_type_id: 'RTX', name: 'lab' });
const reader = (await quad.issueToken(org.id, { scopes: ['podhost:read'], kind: 'agent' })).token;
const manager = (await quad.issueToken(org.id, { scopes: ['podhost:read', 'podhost:manage'], kind: 'agent' })).token;
const tool = (token: string, name: string, args: Record<string, unknown>) =>
  quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(token), payload: { name, arguments: args } });

t.test('podhost:read lists pods with live status and sessions, and cannot act', async (t) => {
  const listed = await tool(reader, 'podhost.pods', {});
  t.equal(listed.statusCode, 200, listed.body);
  t.match(listed.json().result.pods, [{ pod_id: podId, name: 'lab', status: 'RUNNING', kind: 'gpu' }]);
  t.notMatch(listed.body, /PRIVATE KEY|PODHOST_SSH_HOST_KEY|host_public_key/, 'the pod\'s host key is not in the answer');
  t.notOk(listed.body.includes(fake.pods[0]!.env.PODHOST_SSH_HOST_KEY!.split('\n')[1]!), 'not a line of the private key');
  t.same((await tool(reader, 'podhost.sessions', { pod_id: podId })).json().result, { sessions: [] });
  t.match((await tool(reader, 'podhost.pod_action', { pod_id: podId, action: 'stop' })).json(), { reason: 'unknown_tool' }, 'a tool past the token\'s scopes is not there');
  t.equal(fake.pods[0]!.status, 'RUNNING');
});

t.test('podhost:manage stops a pod (event, audit) and plans its sessions', async (t) => {
  const stopped = await tool(manager, 'podhost.pod_action', { pod_id: podId, action: 'stop' });
  t.equal(stopped.statusCode, 200, stopped.body);
  t.equal(fake.pods[0]!.status, 'EXITED');
  const [event] = await w.sql(`select kind, data from notifications where organization_id = ? and kind = 'podhost.pod_stopped'`, [org.id]);
  t.match(event, { data: { pod_id: podId, by: 'tool' } });
  t.equal((await w.sql(`select count(*)::int as n from audit_log where organization_id = ? and action = 'tools.call' and details->>'tool' = 'podhost.pod_action' and details->>'result' = 'ok'`, [org.id]))[0].n, 1);
  const refused = await tool(manager, 'podhost.pod_action', { pod_id: podId, action: 'stop' });
  t.match(refused.json(), { reason: 'provider_refused' }, 'the provider\'s refusal, as the route answers it');
  t.equal((await tool(manager, 'podhost.pod_action', { pod_id: podId, action: 'terminate' })).statusCode, 400, 'terminate is not a tool action');

  const start = new Date(Date.now() + 86_400_000);
  const added = await tool(manager, 'podhost.add_session', { pod_id: podId, title: 'Workshop', start_at: start.toISOString(), stop_at: new Date(start.getTime() + 3_600_000).toISOString() });
  t.equal(added.statusCode, 200, added.body);
  const id = added.json().result.id;
  t.match((await tool(reader, 'podhost.sessions', { pod_id: podId })).json().result.sessions, [{ id, title: 'Workshop' }]);
  t.match((await tool(manager, 'podhost.add_session', { pod_id: podId, title: 'x', start_at: '2030-01-01T10:00:00', stop_at: '2030-01-01T11:00:00' })).json(), { reason: 'time_zone_missing' });
  t.same((await tool(manager, 'podhost.delete_session', { pod_id: podId, id })).json().result, { id, deleted: true, pod_stop_pending: false });
  t.equal((await tool(manager, 'podhost.delete_session', { pod_id: podId, id })).statusCode, 404);
  t.equal((await tool(reader, 'podhost.sessions', { pod_id: 'nosuchpod' })).statusCode, 404);
});
