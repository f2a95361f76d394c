// The hostprov adapter (RunPod's REST API v2) against the fake provider over real HTTP on loopback: the exact create
// bodies on the wire, pods as the routes see them (status, SSH only while running, cost), updates and actions, a pod the
// provider lost, and every failure as a ProviderRefused (4xx, with the provider's own reason) or a ProviderFailed (5xx,
// timeout, garbage, unreachable, a URL that is not the API's), none of them carrying the API key.
import t, { type Test } from 'tap';
import { startFakeHostprov, FAKE_HOSTPROV_GPU_HOURLY, type FakeHostprov } from '@quad/core/testing';
import { hostprovProvider, HOSTPROV_DEFAULT_URL } from '../provider/hostprov.js';
import { ProviderFailed, ProviderRefused, type PodProvider, type PodSpec } from '../provider/types.js';

const KEY = 'rpa_TESTKEY0123456789abcdefghijklmnop';
const SSH = { host: '127.0.0.1', port: 2222 };

const GPU_SPEC: PodSpec = {
  name: 'training',
  image: 'example/podhost:1',
  gpu: { typeId: 'NVIDIA RTX A4000', count: 2 },
  cloudType: 'COMMUNITY',
  containerDiskGb: 40,
  volume: { sizeGb: 20, mountPath: '/workspace' },
  env: { PODHOST_SSH_PUBLIC_KEY: 'ssh-ed25519 AAAA backend', PODHOST_SETUP: '1' },
  ports: ['22/tcp', '8888/http'],
};
const CPU_SPEC: PodSpec = {
  name: 'notebook', image: 'example/podhost:1', cpu: { flavor: 'cpu3c', vcpus: 4 }, env: {}, ports: ['22/tcp'],
};

/** Every error a test saw, to check at the end that none carries the key. */
const seen: Error[] = [];

async function start(t: Test): Promise<{ fake: FakeHostprov; provider: PodProvider }> {
  const fake = await startFakeHostprov({ apiKey: KEY, ssh: SSH });
  t.teardown(() => fake.close());
  return { fake, provider: hostprovProvider({ baseUrl: fake.url, apiKey: KEY }) };
}

async function refused(t: Test, p: Promise<unknown>): Promise<ProviderRefused> {
  try {
    await p;
  } catch (err) {
    seen.push(err as Error);
    t.type(err, ProviderRefused);
    return err as ProviderRefused;
  }
  t.fail('expected ProviderRefused');
  return new ProviderRefused('none', 0);
}

async function failed(t: Test, p: Promise<unknown>): Promise<ProviderFailed> {
  try {
    await p;
  } catch (err) {
    seen.push(err as Error);
    t.type(err, ProviderFailed);
    return err as ProviderFailed;
  }
  t.fail('expected ProviderFailed');
  return new ProviderFailed('none');
}

t.test('the real base URL ends in /v2, like the fake\'s, and paths go below it', async (t) => {
  t.equal(HOSTPROV_DEFAULT_URL, 'https://api.runpod.io/v2');
  const { fake } = await start(t);
  t.match(fake.url, /^http:\/\/127\.0\.0\.1:\d+\/v2$/);
  const provider = hostprovProvider({ baseUrl: `${fake.url}/`, apiKey: KEY });
  t.same(await provider.list(), [], 'a trailing slash is fine');
  t.same(fake.requests.map((r) => [r.method, r.path, r.key]), [['GET', '/v2/pods', KEY]]);
  t.equal(fake.requests[0].headers.authorization, `Bearer ${KEY}`);
});

t.test('a GPU pod: the v2 create body on the wire, and the pod as the routes see it', async (t) => {
  const { fake, provider } = await start(t);
  const pod = await provider.create(GPU_SPEC);
  t.same(fake.requests.map((r) => [r.method, r.path, r.key]), [['POST', '/v2/pods', KEY]]);
  t.same(fake.requests[0].body, {
    name: 'training',
    image: 'example/podhost:1',
    gpu: { id: 'NVIDIA RTX A4000', count: 2 },
    cloud: 'COMMUNITY',
    disk: 40,
    mounts: { persistent: { size: 20, path: '/workspace' } },
    env: { PODHOST_SSH_PUBLIC_KEY: 'ssh-ed25519 AAAA backend', PODHOST_SETUP: '1' },
    ports: ['22/tcp', '8888/http'],
  }, 'exactly the documented fields, nested the v2 way');
  t.equal(fake.requests[0].headers['content-type'], 'application/json');
  t.same(pod, {
    id: fake.pods[0].id, name: 'training', status: 'RUNNING', image: 'example/podhost:1',
    gpu: { typeId: 'NVIDIA RTX A4000', count: 2 }, cpu: null, ssh: SSH, costPerHour: 2 * FAKE_HOSTPROV_GPU_HOURLY, createId: null,
  });
  t.match(fake.pods[0], { cloud: 'COMMUNITY', disk: 40, mounts: { persistent: { size: 20, path: '/workspace' } } }, 'the provider holds what was asked');
});

t.test('a create\'s id travels in the pod\'s env and is read back from every answer', async (t) => {
  const { fake, provider } = await start(t);
  const createId = '5f0c2b8e-3d1a-4c5e-9b7a-2e4f6a8c0d1e';
  const pod = await provider.create({ ...GPU_SPEC, createId });
  t.same((fake.requests[0].body as { env: object }).env, { ...GPU_SPEC.env, PODHOST_CREATE_ID: createId });
  t.equal(pod.createId, createId);
  t.equal((await provider.get(pod.id))?.createId, createId);
  t.same((await provider.list()).map((p) => p.createId), [createId]);
});

t.test('a CPU pod: flavor and vCPUs, no volume, the provider\'s defaults for what is unset', async (t) => {
  const { fake, provider } = await start(t);
  const pod = await provider.create(CPU_SPEC);
  t.same(fake.requests[0].body, {
    name: 'notebook', image: 'example/podhost:1', cpu: { id: 'cpu3c', vcpuCount: 4 }, env: {}, ports: ['22/tcp'],
  }, 'no gpu, cloud, disk or mounts keys');
  t.match(pod, { status: 'RUNNING', gpu: null, cpu: { flavor: 'cpu3c', vcpus: 4 }, ssh: SSH });
  t.equal(fake.pods[0].cloud, 'SECURE', 'the provider\'s default tier');
});

t.test('list and get: RUNNING with ssh, EXITED without, a pod the provider lost is null', async (t) => {
  const { fake, provider } = await start(t);
  const gpu = await provider.create(GPU_SPEC);
  const cpu = await provider.create(CPU_SPEC);
  t.same((await provider.list()).map((p) => [p.id, p.status]), [[gpu.id, 'RUNNING'], [cpu.id, 'RUNNING']]);

  t.same(await provider.get(gpu.id), gpu, 'get answers what create did');
  fake.setStatus(cpu.id, 'EXITED');
  t.match(await provider.get(cpu.id), { id: cpu.id, status: 'EXITED', ssh: null, costPerHour: 0 }, 'stopped: no SSH address, no compute cost');
  fake.setStatus(cpu.id, 'provisioning');
  t.match(await provider.get(cpu.id), { status: 'PROVISIONING', ssh: null }, 'the status is upper-cased');

  fake.remove(gpu.id);
  t.equal(await provider.get(gpu.id), null, 'the provider no longer has it: null (GONE)');
  t.same((await provider.list()).map((p) => p.id), [cpu.id]);
  t.equal(fake.requests.filter((r) => r.method === 'GET' && r.path === `/v2/pods/${gpu.id}`).length, 2);
});

t.test('a pod without a public 22/tcp has no SSH endpoint', async (t) => {
  const { provider } = await start(t);
  const pod = await provider.create({ ...CPU_SPEC, ports: ['8888/http'] });
  t.equal(pod.status, 'RUNNING');
  t.equal(pod.ssh, null);
});

t.test('update sends only the given fields, with PATCH', async (t) => {
  const { fake, provider } = await start(t);
  const pod = await provider.create(GPU_SPEC);
  const renamed = await provider.update(pod.id, { name: 'renamed' });
  t.equal(renamed.name, 'renamed');
  const changed = await provider.update(pod.id, { image: 'example/podhost:2', env: { ONLY: 'this' } });
  t.match(changed, { name: 'renamed', image: 'example/podhost:2' });
  t.same(fake.requests.slice(1).map((r) => [r.method, r.path, r.body]), [
    ['PATCH', `/v2/pods/${pod.id}`, { name: 'renamed' }],
    ['PATCH', `/v2/pods/${pod.id}`, { image: 'example/podhost:2', env: { ONLY: 'this' } }],
  ]);
  t.same(fake.pods[0].env, { ONLY: 'this' }, 'env replaces the pod\'s environment');
});

t.test('stop, start and restart are actions; one the status does not allow is refused (409)', async (t) => {
  const { fake, provider } = await start(t);
  const pod = await provider.create(GPU_SPEC);
  await provider.stop(pod.id);
  t.match(await provider.get(pod.id), { status: 'EXITED', ssh: null });
  await provider.start(pod.id);
  t.match(await provider.get(pod.id), { status: 'RUNNING', ssh: SSH });
  await provider.restart(pod.id);
  t.match(await provider.get(pod.id), { status: 'RUNNING', ssh: SSH });
  t.same(fake.requests.filter((r) => r.path.endsWith('/action')).map((r) => [r.method, r.path, r.body]), [
    ['POST', `/v2/pods/${pod.id}/action`, { action: 'stop' }],
    ['POST', `/v2/pods/${pod.id}/action`, { action: 'start' }],
    ['POST', `/v2/pods/${pod.id}/action`, { action: 'restart' }],
  ]);

  const again = await refused(t, provider.start(pod.id));
  t.equal(again.status, 409, 'starting a running pod');
  t.equal(again.reason, 'cannot start a pod in status RUNNING');
  const lost = await refused(t, provider.stop('nosuchpod'));
  t.equal(lost.status, 404, 'an action on a pod the provider does not have is refused, not "done"');
});

t.test('delete; deleting a pod the provider no longer has succeeds', async (t) => {
  const { fake, provider } = await start(t);
  const a = await provider.create(GPU_SPEC);
  const b = await provider.create(CPU_SPEC);
  await provider.delete(a.id);
  t.same(fake.pods.map((p) => p.id), [b.id]);
  t.match(fake.requests.at(-1), { method: 'DELETE', path: `/v2/pods/${a.id}`, body: null, key: KEY });
  await provider.delete(a.id);
  fake.remove(b.id);
  await provider.delete(b.id);
  t.same(fake.pods, []);
  t.equal(fake.requests.filter((r) => r.method === 'DELETE').length, 3);
});

t.test('a refusal carries the provider\'s own reason, short', async (t) => {
  const { fake, provider } = await start(t);
  const volume = await refused(t, provider.create({ ...CPU_SPEC, volume: { sizeGb: 20, mountPath: '/workspace' } }));
  t.equal(volume.status, 400);
  t.equal(volume.reason, 'mounts.persistent is not supported on CPU pods; use a network volume');
  t.match(volume.message, /^The pod provider refused the request \(400\): mounts\.persistent/);

  const both = await refused(t, provider.create({ ...GPU_SPEC, cpu: CPU_SPEC.cpu }));
  t.equal(both.reason, 'exactly one of gpu or cpu must be set');

  const schema = await refused(t, provider.create({ ...CPU_SPEC, name: '', image: undefined as unknown as string }));
  t.equal(schema.status, 422, 'against the schema: 422 with the list of errors');
  t.equal(schema.reason, "Request validation failed: $.name: expected a non-empty string; $: missing property 'image'");

  fake.refuseNext(400, 'There are no longer any instances available with the requested specifications.');
  const capacity = await refused(t, provider.create(GPU_SPEC));
  t.equal(capacity.reason, 'There are no longer any instances available with the requested specifications.');

  fake.refuseNext(402, `  insufficient\n balance ${'x'.repeat(1000)}`);
  const long = await refused(t, provider.create(GPU_SPEC));
  t.equal(long.status, 402);
  t.ok(long.reason.length <= 300, 'trimmed to 300 characters');
  t.match(long.reason, /^insufficient balance x+…$/, 'white space collapsed, cut with an ellipsis');

  fake.refuseNext(400, `your key ${KEY} is not allowed here`);
  const echoed = await refused(t, provider.list());
  t.equal(echoed.reason, 'your key *** is not allowed here', 'a reason that echoes the key is masked');

  // A create's secret env values (the pod's host private key) are masked as the key is, whole or a line of them.
  const hostKey = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n';
  const secretSpec: PodSpec = { ...GPU_SPEC, env: { ...GPU_SPEC.env, PODHOST_SSH_HOST_KEY: hostKey }, secretEnv: ['PODHOST_SSH_HOST_KEY'] };
  fake.refuseNext(400, `env PODHOST_SSH_HOST_KEY is too long: ${hostKey}`);
  const whole = await refused(t, provider.create(secretSpec));
  t.equal(whole.reason, 'env PODHOST_SSH_HOST_KEY is too long: ***');
  fake.refuseNext(400, `bad line: b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW`);
  t.equal((await refused(t, provider.create(secretSpec))).reason, 'bad line: ***');
  t.notMatch(JSON.stringify(fake.requests.at(-1)!.body), /secretEnv/, 'secretEnv is not sent');
  t.same(fake.pods, [], 'nothing was created');
});

t.test('a wrong key is refused (401)', async (t) => {
  const { fake } = await start(t);
  const wrong = hostprovProvider({ baseUrl: fake.url, apiKey: 'rpa_WRONGKEY' });
  const err = await refused(t, wrong.list());
  t.equal(err.status, 401);
  t.equal(err.reason, 'invalid bearer token');
  t.notOk(err.message.includes('rpa_WRONGKEY'));
  t.equal(fake.requests[0].key, 'rpa_WRONGKEY');
  const none = await refused(t, hostprovProvider({ baseUrl: fake.url, apiKey: '' }).get('x'));
  t.same([none.status, none.reason], [401, 'missing bearer token'], 'a 401 on get is a refusal, not a lost pod');
});

t.test('5xx, timeouts, garbage and unreachable providers fail with a message an officer can act on', async (t) => {
  const { fake, provider } = await start(t);
  fake.failNext(500);
  t.equal((await failed(t, provider.list())).message, 'The pod provider failed (500); try again later');
  fake.failNext(502, 2);
  t.match((await failed(t, provider.create(GPU_SPEC))).message, /failed \(502\)/);
  t.match((await failed(t, provider.get('x'))).message, /failed \(502\)/, 'a 5xx on get is a failure, not a lost pod');

  // Its own provider: only this one waits 0.2 s, the others keep the default.
  const quick = hostprovProvider({ baseUrl: fake.url, apiKey: KEY, timeoutMs: 200 });
  fake.failNext('timeout');
  t.equal((await failed(t, quick.list())).message, 'The pod provider did not answer within 0.2 s; try again later');

  fake.garbleNext();
  t.match((await failed(t, provider.list())).message, /answered something other than JSON: check HOSTPROV_API_URL/);
  fake.garbleNext();
  t.match((await failed(t, provider.get('x'))).message, /something other than JSON/);

  const elsewhere = hostprovProvider({ baseUrl: fake.url.replace(/\/v2$/, ''), apiKey: KEY });
  const notApi = await failed(t, elsewhere.get('x'));
  t.match(notApi.message, /API was not found at 127\.0\.0\.1:\d+ \(404\): check HOSTPROV_API_URL \(it should end in \/v2\)/,
    'a 404 page that is not the API\'s problem object never reads as "pod gone"');
  await failed(t, elsewhere.delete('x'));

  t.same(await provider.list(), [], 'the forced answers are used up: the provider answers again');

  const gone = await startFakeHostprov();
  const url = gone.url;
  await gone.close();
  const unreachable = await failed(t, hostprovProvider({ baseUrl: url, apiKey: KEY }).list());
  t.match(unreachable.message, /^The pod provider cannot be reached at 127\.0\.0\.1:\d+: check HOSTPROV_API_URL/);
});

t.test('no error message carries the API key, nor a stack', async (t) => {
  t.ok(seen.some((e) => e instanceof ProviderRefused) && seen.some((e) => e instanceof ProviderFailed), 'the tests above saw both kinds');
  for (const err of seen) {
    t.notOk(err.message.includes(KEY), err.message);
    t.notMatch(err.message, /\n +at /);
    if (err instanceof ProviderRefused) t.notOk(err.reason.includes(KEY));
  }
});
