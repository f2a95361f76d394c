// The officers' pod routes against the fake provider: pods made on the org's own account with the create body's
// rules and the image order, live status (RUNNING, EXITED, GONE, UNKNOWN), access, actions with their audit and
// events, the org's default image, podhost.pods, and the provider's refusals (400) and failures (424).
import t from 'tap';
import { bearer } from '@quad/core/testing';
import { API_KEY, startPodsWorld } from './world.js';

const w = await startPodsWorld(t, { connected: false, config: { PODHOST_POD_IMAGE: 'example/podhost:1', LIMIT_PODHOST_PODS: 3, PODHOST_PROVIDER_TIMEOUT_MS: 2000 } });
const { quad, org, fake, asOfficer: officer } = w;
fake.publishSshAt({ host: '127.0.0.1', port: 2222 });
const create = (body: Record<string, unknown>) => officer('POST', '/pods', body);
const GPU = { gpu_type_id: 'NVIDIA RTX A4000' };
const creates = () => fake.requests.filter((r) => r.method === 'POST' && /\/pods$/.test(r.path));

t.test('the routes', async (t) => {
  t.same(quad.routes('/api/compute'), [
    'DELETE /api/compute/:org/pods/:pod_id/sessions/:id',
    'GET /api/compute/:org/cli/login', 'GET /api/compute/:org/me/pods', 'GET /api/compute/:org/members', 'GET /api/compute/:org/members/roles',
    'GET /api/compute/:org/pods', 'GET /api/compute/:org/pods/:pod_id', 'GET /api/compute/:org/pods/:pod_id/files',
    'GET /api/compute/:org/pods/:pod_id/members', 'GET /api/compute/:org/pods/:pod_id/members/connected', 'GET /api/compute/:org/pods/:pod_id/sessions',
    'GET /api/compute/:org/settings', 'GET /api/compute/cli/callback',
    'POST /api/compute/:org/me/pods/:pod_id/connect', 'POST /api/compute/:org/pods', 'POST /api/compute/:org/pods/:pod_id/action',
    ...['delete', 'download', 'mkdir', 'read', 'rename', 'upload', 'write'].map((op) => `POST /api/compute/:org/pods/:pod_id/files/${op}`),
    'POST /api/compute/:org/pods/:pod_id/sessions', 'PUT /api/compute/:org/pods/:pod_id', 'PUT /api/compute/:org/settings',
  ]);
});

t.test('before the org sets its provider key', async (t) => {
  t.same((await officer('GET', '/pods')).json(), { pods: [] });
  const refused = await create(GPU);
  t.equal(refused.statusCode, 400);
  t.match(refused.json(), { reason: 'provider_not_connected', error: /hostprov_api_key on Explore → Integrations/ });
  t.equal((await officer('GET', '/settings')).json().provider_connected, false);
  t.equal(creates().length, 0, 'the provider was not asked');
  const providers = () => w.call({ url: `/api/dashboard/${org.prefix}/hosting/providers`, token: w.officerToken });
  t.same((await providers()).json(), { providers: [{ name: 'hostprov', title: 'hostprov', integration: 'hostprov', configured: false }] });
  await quad.services.secrets.set(quad.emFor(org.id), org.id, 'hostprov_api_key', API_KEY);
  t.equal((await officer('GET', '/settings')).json().provider_connected, true);
  t.same((await providers()).json().providers.map((p: { configured: boolean }) => p.configured), [true], 'hosting/providers: configured once the key is set');
});

t.test('create: the body\'s rules, before the provider is asked', async (t) => {
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ provider: 'othercloud', ...GPU }, 'unknown_provider', /unknown provider "othercloud"/],
    [{}, 'invalid_pod', /a GPU pod needs a gpu_type_id/],
    [{ use_cpu_only: true }, 'invalid_pod', /a CPU pod needs a cpu_flavor/],
    [{ use_cpu_only: true, cpu_flavor: 'cpu3c', vcpu_count: 6 }, 'invalid_pod', /6 is not a power of two/],
    [{ use_cpu_only: true, cpu_flavor: 'cpu3c', volume_in_gb: 20 }, 'invalid_pod', /a CPU pod has no volume/],
    [{ use_cpu_only: true, cpu_flavor: 'cpu3c', gpu_type_id: 'x' }, 'invalid_pod', /a CPU pod \(use_cpu_only\) has no GPU fields/],
    [{ ...GPU, vcpu_count: 4 }, 'invalid_pod', /are for CPU pods/],
    [{ ...GPU, volume_in_gb: 5, volume_mount_path: '/data' }, 'invalid_pod', /a volume needs volume_in_gb of 10 or more/],
    [{ ...GPU, volume_in_gb: 20, volume_mount_path: '/data/../etc' }, 'invalid_pod', /without \. or \.\. parts/],
    [{ ...GPU, env: { PODHOST_SETUP: 'x' } }, 'invalid_pod', /PODHOST_SETUP: names starting PODHOST_ are set by Quad/],
    [{ ...GPU, env: { 'bad name': 'x' } }, 'invalid_pod', /"bad name": a name has letters, digits and _/],
  ];
  for (const [body, reason, error] of cases) {
    const res = await create(body);
    t.equal(res.statusCode, 400, JSON.stringify(body));
    t.match(res.json(), { reason, error });
  }
  for (const body of [{ ...GPU, volume_mount_path: 'data' }, { ...GPU, allowed_users: ['bob'] }, { ...GPU, surprise: 1 }]) {
    t.equal((await create(body)).statusCode, 400, `schema: ${JSON.stringify(body)}`);
  }
  t.equal(creates().length, 0, 'the provider was asked nothing');
});

t.test('create, read, change access, act, terminate', async (t) => {
  const made = await create({ ...GPU, name: 'training', volume_in_gb: 20, env: { HF_TOKEN: 'hf_secret_value' }, allowed_users: [w.member.id] });
  t.equal(made.statusCode, 201, made.body);
  const pod = made.json();
  t.match(pod, {
    provider: 'hostprov', name: 'training', image: 'example/podhost:1', kind: 'gpu', gpu_type_id: 'NVIDIA RTX A4000', gpu_count: 1,
    volume_in_gb: 20, volume_mount_path: '/workspace', env_names: ['HF_TOKEN'], is_public: false, allowed_users: [w.member.id],
    status: 'RUNNING', ssh: { host: '127.0.0.1', port: 2222 }, created_by: `officer:${w.officer.id}`,
  });
  t.notMatch(made.body, /hf_secret_value/, 'env values are not answered');
  const [sent] = creates();
  t.equal(sent.key, API_KEY, 'with the org\'s own key');
  t.match(JSON.stringify(sent.body), /hf_secret_value/, 'the provider got the env');
  const [row] = await w.sql('select * from compute_pods where pod_id = ?', [pod.pod_id]);
  t.notMatch(JSON.stringify(row), /hf_secret_value/, 'and the table keeps only its names');

  t.match((await officer('GET', `/pods/${pod.pod_id}`)).json(), { pod_id: pod.pod_id, status: 'RUNNING' });
  const access = await officer('PUT', `/pods/${pod.pod_id}`, { is_public: true });
  t.match(access.json(), { is_public: true, allowed_users: [w.member.id] }, 'one field changes, the other stays');
  t.same((await officer('PUT', `/pods/${pod.pod_id}`, { allowed_users: [] })).json().allowed_users, []);
  t.equal((await officer('PUT', `/pods/${pod.pod_id}`, {})).statusCode, 400, 'nothing to change');

  const stopped = await officer('POST', `/pods/${pod.pod_id}/action`, { action: 'stop' });
  t.match(stopped.json(), { action: 'stop', pod: { status: 'EXITED', ssh: null } });
  t.match((await officer('POST', `/pods/${pod.pod_id}/action`, { action: 'start' })).json(), { pod: { status: 'RUNNING' } });
  t.equal((await officer('POST', `/pods/${pod.pod_id}/action`, { action: 'restart' })).statusCode, 200);
  t.equal((await officer('POST', `/pods/${pod.pod_id}/action`, { action: 'explode' })).statusCode, 400);

  const gone = await officer('POST', `/pods/${pod.pod_id}/action`, { action: 'terminate' });
  t.same(gone.json(), { pod_id: pod.pod_id, action: 'terminate', pod: null });
  t.equal((await officer('GET', `/pods/${pod.pod_id}`)).statusCode, 404, 'the record is gone');
  t.notOk(fake.pods.some((p) => p.id === pod.pod_id), 'and so is the provider\'s pod');

  const audit = await w.sql<{ action: string }>("select action from audit_log where action like 'podhost.%' order by id");
  t.same(audit.map((a) => a.action), [
    'podhost.pod_created', 'podhost.pod_access', 'podhost.pod_access', 'podhost.pod_stopped', 'podhost.pod_started', 'podhost.pod_restarted', 'podhost.pod_terminated',
  ]);
  const events = await w.sql<{ kind: string }>("select kind from notifications where kind like 'podhost.%' order by id");
  t.same(events.map((e) => e.kind), ['podhost.pod_created', 'podhost.pod_stopped', 'podhost.pod_started', 'podhost.pod_restarted', 'podhost.pod_terminated']);
});

t.test('the image order: body, then the org\'s pod_image, then PODHOST_POD_IMAGE', async (t) => {
  t.match((await officer('PUT', '/settings', { pod_image: 'acm/pod:2' })).json(), { pod_image: 'acm/pod:2', default_image: 'example/podhost:1' });
  const org = (await create({ use_cpu_only: true, cpu_flavor: 'cpu3c', vcpu_count: 4 })).json();
  t.match(org, { image: 'acm/pod:2', kind: 'cpu', cpu_flavor: 'cpu3c', vcpu_count: 4, volume_in_gb: null });
  const body = (await create({ ...GPU, image_name: 'mine/special:3', volume_in_gb: 5 })).json();
  t.match(body, { image: 'mine/special:3', volume_in_gb: null }, 'under 10 GB: no volume');
  t.equal((await officer('PUT', '/settings', { pod_image: null })).json().pod_image, null);
  for (const p of [org, body]) await officer('POST', `/pods/${p.pod_id}/action`, { action: 'terminate' });
});

t.test('no image anywhere (body, the org\'s pod_image, PODHOST_POD_IMAGE): 400 no_pod_image saying what to set, nothing made', async (t) => {
  const bare = await startPodsWorld(t, { config: { PODHOST_POD_IMAGE: undefined } });
  const bareCreate = (body: Record<string, unknown>) => bare.asOfficer('POST', '/pods', body);
  t.same((await bare.asOfficer('GET', '/settings')).json(), { pod_image: null, default_image: null, provider_connected: true }, 'default_image: null');

  const refused = await bareCreate(GPU);
  t.equal(refused.statusCode, 400);
  t.match(refused.json(), { reason: 'no_pod_image', field: 'body.image_name', error: /^No pod image: .*image_name.*the org has no default pod image \(its pod_image setting.*PODHOST_POD_IMAGE/ });
  t.equal(bare.fake.requests.filter((r) => r.method === 'POST' && /\/pods$/.test(r.path)).length, 0, 'the provider is not asked');
  const [kept] = await bare.sql<{ pods: number; keys: number; lost: number; audit: number }>(`select
    (select count(*)::int from compute_pods) as pods, (select count(*)::int from compute_keys) as keys,
    (select count(*)::int from compute_lost_creates) as lost, (select count(*)::int from audit_log where action like 'podhost.%') as audit`);
  t.same(kept, { pods: 0, keys: 0, lost: 0, audit: 0 }, 'no pod, no keys, no lost create, no audit entry');

  t.match((await bareCreate({ ...GPU, image_name: 'mine/special:3' })).json(), { image: 'mine/special:3' }, 'an image in the body serves');
  await bare.asOfficer('PUT', '/settings', { pod_image: 'acm/pod:2' });
  t.match((await bare.asOfficer('GET', '/settings')).json(), { pod_image: 'acm/pod:2', default_image: null });
  t.match((await bareCreate(GPU)).json(), { image: 'acm/pod:2' }, 'so does the org\'s');
});

t.test('live status: GONE when the provider lost the pod, UNKNOWN when it cannot be asked', async (t) => {
  const a = (await create({ ...GPU, name: 'a' })).json();
  const b = (await create({ ...GPU, name: 'b' })).json();
  fake.remove(b.pod_id);
  const listed = (await officer('GET', '/pods')).json().pods;
  t.same(listed.map((p: { name: string; status: string }) => [p.name, p.status]), [['b', 'GONE'], ['a', 'RUNNING']], 'newest first');
  fake.failNext(500);
  const down = await officer('GET', '/pods');
  t.equal(down.statusCode, 200, 'the list still answers');
  t.match(down.json().pods, [{ status: 'UNKNOWN', status_reason: /provider/ }, { status: 'UNKNOWN' }]);
  await officer('POST', `/pods/${a.pod_id}/action`, { action: 'terminate' });
  const b2 = await officer('POST', `/pods/${b.pod_id}/action`, { action: 'terminate' });
  t.equal(b2.statusCode, 200, 'a pod the provider lost can still be terminated');
  t.same((await officer('GET', '/pods')).json().pods, []);
});

t.test('the provider refuses (400 with its reason) or fails (424): no pod is kept', async (t) => {
  fake.refuseNext(400, 'There are no longer any instances available with the requested specifications');
  const refused = await create(GPU);
  t.equal(refused.statusCode, 400);
  t.match(refused.json(), { reason: 'provider_refused', error: /no longer any instances available/ });
  fake.failNext(502);
  const failed = await create(GPU);
  t.equal(failed.statusCode, 424);
  t.match(failed.json(), { reason: 'provider_failed' });
  t.notMatch(failed.body, new RegExp(API_KEY), 'no key in an answer');
  t.same((await officer('GET', '/pods')).json().pods, []);
  t.equal((await w.sql('select count(*)::int as n from compute_pods'))[0].n, 0);
  t.same(await w.sql('select name from compute_lost_creates'), [{ name: 'acm-pod' }],
    'the failed create is remembered (a 5xx may come after the provider made the pod); the refused one is not');
  await w.sql('delete from compute_lost_creates');
});

t.test('a create the provider carries out after its deadline: 424, then the schedule deletes the pod it made', async (t) => {
  const ours = fake.pods.map((p) => p.id);
  // A pod on the account that Quad did not make: never touched.
  const theirs = await (await fetch(`${fake.url}/pods`, {
    method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'their-own', image: 'their/image', gpu: { id: 'NVIDIA RTX A4000', count: 1 } }),
  })).json() as { id: string };
  fake.failNext('late');
  const lost = await create({ ...GPU, name: 'late' });
  t.equal(lost.statusCode, 424);
  t.match(lost.json(), { reason: 'provider_failed', error: /did not answer within 2 s/ });
  const made = fake.pods.find((p) => p.name === 'late')!;
  t.match(made?.env, { PODHOST_CREATE_ID: /^[0-9a-f-]{36}$/ }, 'the provider made the pod all the same, named by its create');
  t.notOk((await officer('GET', '/pods')).json().pods.some((p: { name: string }) => p.name === 'late'), 'with no record here');
  t.same(await w.sql('select name from compute_lost_creates'), [{ name: 'late' }], 'the create is remembered');

  const schedule = () => quad.runJob('podhost.schedule', {}, null);
  fake.failNext(502);
  await schedule();
  t.ok(fake.pods.some((p) => p.id === made.id), 'a provider that cannot list its pods now: the pod waits for the next run');
  t.equal((await w.sql('select count(*)::int as n from compute_lost_creates'))[0].n, 1);
  await schedule();
  t.notOk(fake.pods.some((p) => p.id === made.id), 'the next run deleted it');
  t.same(await w.sql('select name from compute_lost_creates'), [], 'and forgot the create');
  t.same(fake.pods.map((p) => p.id), [...ours, theirs.id], 'the org\'s pods and a pod Quad did not make are left alone');
  t.same(await w.sql("select title, data from notifications where kind = 'podhost.lost_pod_deleted'"),
    [{ title: 'Pod late deleted: the provider made it after its create had failed', data: { pod_id: made.id, name: 'late' } }]);
  await fetch(`${fake.url}/pods/${theirs.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${API_KEY}` } });
});

t.test('a lost create whose pod never appears is forgotten after 24 hours', async (t) => {
  await w.sql("insert into compute_lost_creates (organization_id, create_id, name, created_at) values (?, gen_random_uuid(), 'never', now() - interval '25 hours'), (?, gen_random_uuid(), 'recent', now() - interval '23 hours')", [org.id, org.id]);
  await quad.runJob('podhost.schedule', {}, null);
  t.same(await w.sql('select name from compute_lost_creates'), [{ name: 'recent' }], 'the one within the window is still looked for');
  await w.sql('delete from compute_lost_creates');
});

t.test('podhost.pods: the fourth pod is 409 and the provider is not asked; two creates for the last place make one', async (t) => {
  const first = await Promise.all([create(GPU), create(GPU)]);
  t.same(first.map((r) => r.statusCode), [201, 201]);
  const asked = creates().length;
  const race = await Promise.all([create(GPU), create(GPU)]);
  t.same(race.map((r) => r.statusCode).sort(), [201, 409]);
  t.equal(creates().length, asked + 1, 'the loser never reached the provider');
  const over = await create(GPU);
  t.equal(over.statusCode, 409);
  t.match(over.json(), { error: /podhost\.pods/ });
  t.equal(fake.pods.length, 3);
  for (const p of (await officer('GET', '/pods')).json().pods) await officer('POST', `/pods/${p.pod_id}/action`, { action: 'terminate' });
});

t.test('officers of the org only', async (t) => {
  const pod = (await create(GPU)).json();
  t.teardown(() => officer('POST', `/pods/${pod.pod_id}/action`, { action: 'terminate' }));
  const stranger = await w.strangerOfficerToken();
  for (const [method, url] of [['GET', '/pods'], ['GET', `/pods/${pod.pod_id}`], ['POST', `/pods/${pod.pod_id}/action`], ['PUT', '/settings']] as const) {
    const body = method === 'GET' ? undefined : url.endsWith('action') ? { action: 'stop' } : { pod_image: null };
    t.equal((await w.call({ method, url: `/api/compute/${org.prefix}${url}`, token: stranger, body })).statusCode, 403, `another org's officer: ${method} ${url}`);
    t.equal((await w.call({ method, url: `/api/compute/${org.prefix}${url}`, cookie: w.memberCookie, body })).statusCode, 401, `a member: ${method} ${url}`);
  }
  const agent = (await quad.issueToken(org.id, { scopes: ['org:read'] })).token;
  t.equal((await quad.api.inject({ url: `/api/compute/${org.prefix}/pods`, headers: bearer(agent) })).statusCode, 401, 'a machine token');
  t.equal((await officer('GET', '/pods/nope')).statusCode, 404);
  t.match((await officer('GET', `/pods/${pod.pod_id}`)).json(), { status: 'RUNNING' }, 'nothing was stopped by them');
});
