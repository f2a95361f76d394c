// Faults of the pod provider (spec document 2, "Errors": 424 when the provider fails): down (a 5xx, the connection
// refused, the connection reset) and slow (no answer within PODHOST_PROVIDER_TIMEOUT_MS). While it is down every
// route and tool that needs its answer says so: creating, acting on, connecting to and opening the files of a pod
// answer 424 `provider_failed`, and nothing is kept (no pod row, no podhost.pods use, no event, audit or connection
// row); the reads that only show its live status answer 200 with UNKNOWN and why (README "Live status"). Each fault
// kind then once more on create, list and an action. After it recovers the same calls work, up to podhost.pods.
// The provider is the fake behind a flaky link (test/faults/flaky-link.ts), so the network itself can fail.
import t, { type Test } from 'tap';
import { bearer } from '@quad/core/testing';
import { API_KEY, startPodsWorld } from '../../plugins/pods/test/world.js';
import { startFlakyLink, type LinkMode } from './flaky-link.js';

/** Lowered from 30 s so a slow provider costs this test one second per call. */
const PROVIDER_TIMEOUT_MS = 1000;

const link = await startFlakyLink(t);
const w = await startPodsWorld(t, {
  config: { HOSTPROV_API_URL: link.url('/v2'), PODHOST_PROVIDER_TIMEOUT_MS: PROVIDER_TIMEOUT_MS, LIMIT_PODHOST_PODS: 2 },
});
link.forwardTo(w.fake.url);
const { quad, org, fake, asOfficer: officer } = w;
fake.publishSshAt({ host: '127.0.0.1', port: 2299 });
const base = `/api/compute/${org.prefix}`;
const asMember = (method: string, url: string, body?: unknown) => w.call({ method, url: `${base}${url}`, cookie: w.memberCookie, body });
const manager = (await quad.issueToken(org.id, { scopes: ['podhost:read', 'podhost:manage'], kind: 'agent' })).token;
const tool = (name: string, args: Record<string, unknown>) =>
  quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(manager), payload: { name, arguments: args } });
const MEMBER_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GZbm member@laptop';

const podId = await w.createPod({ gpu_type_id: 'NVIDIA RTX A4000', name: 'lab', is_public: true });

/** What a failed call must not have left: rows of the module, its events and audit entries, pods at the provider. */
const kept = async () => ({
  pods: await w.sql('select pod_id, name, is_public, allowed_users from compute_pods order by id'),
  connections: await w.sql('select id from compute_connections order by id'),
  events: await w.sql("select kind from notifications where kind like 'podhost.%' order by id"),
  audit: await w.sql("select action from audit_log where action like 'podhost.%' order by id"),
  provider: fake.pods.map((p) => [p.id, p.status]),
});
const podsUsed = async () => (await quad.services.limits.report(quad.orm.em.fork(), org))
  .find((l) => l.key === 'podhost.pods')!.use;

function failed(t: Test, res: { statusCode: number; body: string; json(): any }, error: RegExp, what: string) {
  t.equal(res.statusCode, 424, `${what}: 424`);
  t.match(res.json(), { reason: 'provider_failed', error }, what);
  t.notMatch(res.body, new RegExp(API_KEY), `${what}: no key`);
  t.notMatch(res.body, /\n\s+at |TypeError|fetch failed|ECONN/, `${what}: no stack or socket error`);
}

t.test('the provider refusing connections: every call that needs it is 424 or shows UNKNOWN; nothing is kept', async (t) => {
  await link.set('refuse');
  t.teardown(() => link.set('pass'));
  const down = /^The pod provider cannot be reached at 127\.0\.0\.1:\d+: check HOSTPROV_API_URL, or try again later$/;
  const before = await kept();
  const used = await podsUsed();

  failed(t, await officer('POST', '/pods', { gpu_type_id: 'NVIDIA RTX A4000', name: 'second' }), down, 'create');
  failed(t, await officer('POST', '/pods', { use_cpu_only: true, cpu_flavor: 'cpu3c', name: 'third' }), down, 'create a CPU pod');
  for (const action of ['start', 'stop', 'restart', 'terminate']) {
    failed(t, await officer('POST', `/pods/${podId}/action`, { action }), down, `action ${action}`);
  }
  failed(t, await officer('GET', `/pods/${podId}/files?path=/tmp`), down, 'the file list');
  failed(t, await officer('POST', `/pods/${podId}/files/write`, { path: '/tmp/x', content: 'x' }), down, 'a file write');
  failed(t, await asMember('GET', '/me/pods'), down, 'a member\'s pod list');
  const connect = await asMember('POST', `/me/pods/${podId}/connect`, { public_key: MEMBER_KEY });
  failed(t, connect, /^The pod's state could not be read: The pod provider cannot be reached/, 'a member\'s connect');
  const action = await tool('podhost.pod_action', { pod_id: podId, action: 'stop' });
  t.equal(action.statusCode, 424, 'the tool podhost.pod_action');
  t.match(action.json(), { ok: false, reason: 'provider_failed', error: down });

  const listed = await officer('GET', '/pods');
  t.equal(listed.statusCode, 200, 'the list still answers');
  t.match(listed.json().pods, [{ pod_id: podId, name: 'lab', status: 'UNKNOWN', status_reason: down, ssh: null }]);
  t.match((await officer('GET', `/pods/${podId}`)).json(), { status: 'UNKNOWN', status_reason: down });
  const access = await officer('PUT', `/pods/${podId}`, { allowed_users: [w.member.id] });
  t.equal(access.statusCode, 200, 'access is Quad\'s own record: it changes without the provider');
  t.match(access.json(), { status: 'UNKNOWN', allowed_users: [w.member.id] });
  await officer('PUT', `/pods/${podId}`, { allowed_users: [] });
  const toolList = await tool('podhost.pods', {});
  t.equal(toolList.statusCode, 200);
  t.match(toolList.json().result.pods, [{ pod_id: podId, status: 'UNKNOWN', status_reason: down }]);
  const connected = await officer('GET', `/pods/${podId}/members/connected`);
  t.equal(connected.statusCode, 200, 'connected sessions always answer');
  t.match(connected.json(), { state: 'unknown', reason: /^The pod's status is unknown: The pod provider cannot be reached/, sessions: [] });

  const after = await kept();
  t.same({ ...after, audit: after.audit.filter((a) => a.action !== 'podhost.pod_access') }, before,
    'no pod row, connection row, event or pod at the provider was added or removed; only the access changes were audited');
  t.equal(await podsUsed(), used, 'podhost.pods was not used');
  t.same(link.accepted.refuse, undefined, 'nothing reached the provider');
});

interface Fault { name: string; mode: LinkMode; error: RegExp }
const faults: Fault[] = [
  { name: 'a 503', mode: { status: 503 }, error: /^The pod provider failed \(503\); try again later$/ },
  { name: 'a 500', mode: { status: 500 }, error: /^The pod provider failed \(500\); try again later$/ },
  { name: 'the connection reset', mode: 'reset', error: /^The pod provider cannot be reached at 127\.0\.0\.1:\d+/ },
  { name: 'no answer in time', mode: 'hang', error: new RegExp(`^The pod provider did not answer within ${PROVIDER_TIMEOUT_MS / 1000} s; try again later$`) },
];

for (const fault of faults) {
  t.test(`the provider down or slow: ${fault.name}`, async (t) => {
    await link.set(fault.mode);
    t.teardown(() => link.set('pass'));
    const before = await kept();
    // At once: a slow provider costs one deadline, not three.
    const [created, stopped, listed] = await Promise.all([
      officer('POST', '/pods', { gpu_type_id: 'NVIDIA RTX A4000', name: 'second' }),
      officer('POST', `/pods/${podId}/action`, { action: 'stop' }),
      officer('GET', '/pods'),
    ]);
    failed(t, created, fault.error, 'create');
    failed(t, stopped, fault.error, 'stop');
    t.equal(listed.statusCode, 200);
    t.match(listed.json().pods, [{ pod_id: podId, status: 'UNKNOWN', status_reason: fault.error }]);
    t.same(await kept(), before, 'nothing kept');
  });
}

t.test('after recovery: live status again, the pod acts, creates fill podhost.pods and no more', async (t) => {
  await link.set('pass');
  t.match((await officer('GET', '/pods')).json().pods, [{ pod_id: podId, status: 'RUNNING' }]);
  const stopped = await officer('POST', `/pods/${podId}/action`, { action: 'stop' });
  t.equal(stopped.statusCode, 200, stopped.body);
  t.equal(fake.pods.find((p) => p.id === podId)!.status, 'EXITED');
  t.equal((await officer('POST', `/pods/${podId}/action`, { action: 'start' })).statusCode, 200);
  const connect = await asMember('POST', `/me/pods/${podId}/connect`, { public_key: MEMBER_KEY });
  t.equal(connect.statusCode, 200, connect.body);
  t.equal((await w.sql('select count(*)::int as n from compute_connections'))[0].n, 1, 'one connection row, for the connect that worked');

  const second = await officer('POST', '/pods', { gpu_type_id: 'NVIDIA RTX A4000', name: 'second' });
  t.equal(second.statusCode, 201, 'the failed creates left the second place free');
  const third = await officer('POST', '/pods', { gpu_type_id: 'NVIDIA RTX A4000', name: 'third' });
  t.equal(third.statusCode, 409, 'podhost.pods is 2');
  t.same(fake.pods.map((p) => p.name), ['lab', 'second'], 'the provider holds exactly the pods Quad keeps');
  t.same((await w.sql('select name from compute_pods order by id')).map((r) => r.name), ['lab', 'second']);
});
