// Hosting apps against the real core and a fake provider over loopback: registering (every validation refusal a 400
// naming the field, 409 name_taken, 409 limit_reached), reading, changing the manifest (compute and ports fixed once
// a pod exists), deleting (the pod terminated first; 424 with nothing deleted when the provider fails), the module-off
// 404s and another org's apps, the providers route with hosting on and pods off, and the tools.
import t from 'tap';
import { bearer } from '@quad/core/testing';
import { appBody, startHostingWorld } from './world.js';
import { DEPLOY_JOB } from '../deploys.js';

const w = await startHostingWorld(t, { LIMIT_HOSTPROV_APPS: 3 });
const { quad, fake } = w;

t.test('the providers route answers with hosting on and pods off', async (t) => {
  const res = await w.call('GET', '/hosting/providers');
  t.equal(res.statusCode, 200, res.body);
  t.same(res.json(), { providers: [{ name: 'hostprov', title: 'hostprov', integration: 'hostprov', configured: true }] });
  t.equal((await w.call('GET', '/hosting/providers', undefined, 'beta')).statusCode, 404, 'an org with neither module on');
});

t.test('validation: each refusal is a 400 naming the field, nothing stored', async (t) => {
  const cases: [Record<string, unknown>, string][] = [
    [{ name: 'Bad_Name' }, 'name'],
    [{ name: '9lives' }, 'name'],
    [{ image: 'ghcr.io/acm/site:v1' }, 'body.image'],
    [{ image: 'ghcr.io/acm/site@sha256:' + 'a'.repeat(64) }, 'body.image'],
    [{ image: 'Not An Image' }, 'body.image'],
    [{ gpu: { type_id: 'NVIDIA A40' } }, 'body.cpu'],
    [{ cpu: undefined }, 'body.gpu'],
    [{ cpu: { flavor: 'cpu3c', vcpus: 3 } }, 'body.cpu.vcpus'],
    [{ ports: [{ port: 8080, protocol: 'http' }, { port: 8080, protocol: 'tcp' }] }, 'body.ports'],
    [{ ports: [{ port: 70000, protocol: 'http' }] }, 'port'],
    [{ ports: [{ port: 80, protocol: 'udp' }] }, 'protocol'],
    [{ env: { 'BAD-NAME': 'x' } }, 'env'],
    [{ secret_env: { TOKEN: 'Upper Case' } }, 'secret_env'],
    [{ secret_env: { MODE: 'mode' } }, 'body.secret_env'],
    [{ health: { port: 9000, path: '/' } }, 'body.health.port'],
    [{ health: { port: 8080, path: 'no-slash' } }, 'path'],
    [{ extra: true }, 'additional properties'],
  ];
  for (const [over, field] of cases) {
    const res = await w.call('POST', '/apps', appBody('site', over));
    t.equal(res.statusCode, 400, `${field}: ${res.body}`);
    t.match(res.body, field.replace('body.', '').split('.').pop()!, `the error names ${field}`);
  }
  t.same((await w.call('GET', '/apps')).json(), { apps: [] }, 'nothing was stored');
});

t.test('register, read, change; 409 name_taken and limit_reached', async (t) => {
  const made = await w.call('POST', '/apps', appBody('site', { secret_env: { API_TOKEN: 'site.token' } }));
  t.equal(made.statusCode, 201, made.body);
  t.match(made.json(), {
    name: 'site', pod_id: null, current_deploy: null, latest_deploy: null, deploying: false, health: { status: 'unknown' },
    manifest: {
      image: 'ghcr.io/acm/site', cpu: { flavor: 'cpu3c', vcpus: 2 }, gpu: null, env: { MODE: 'production' }, secret_env: { API_TOKEN: 'site.token' },
      health: { port: 8080, path: '/healthz', expected_status: 200, timeout_seconds: 5, deadline_seconds: 600 },
    },
  });
  const gpu = await w.call('POST', '/apps', appBody('model', { cpu: undefined, gpu: { type_id: 'NVIDIA RTX A4000', count: 2 }, image: 'registry.example:5000/ml/model' }));
  t.equal(gpu.statusCode, 201, gpu.body);
  t.same(gpu.json().manifest.gpu, { type_id: 'NVIDIA RTX A4000', count: 2 });
  const taken = await w.call('POST', '/apps', appBody('site'));
  t.equal(taken.statusCode, 409);
  t.equal(taken.json().reason, 'name_taken');
  t.equal((await w.call('POST', '/apps', appBody('third'))).statusCode, 201);
  const over = await w.call('POST', '/apps', appBody('fourth'));
  t.equal(over.statusCode, 409, over.body);
  t.equal(over.json().reason, 'limit_reached', 'the count limit hostprov.apps (3 here)');
  t.same((await w.call('GET', '/apps')).json().apps.map((a: { name: string }) => a.name), ['model', 'site', 'third']);

  const changed = await w.call('PUT', '/apps/site', { ...appBody('x', { env: { MODE: 'staging' } }), name: undefined });
  t.equal(changed.statusCode, 200, changed.body);
  t.same(changed.json().manifest.env, { MODE: 'staging' });
  t.equal((await w.call('GET', '/apps/nope')).statusCode, 404);
  t.equal((await w.call('PUT', '/apps/nope', { ...appBody('x'), name: undefined })).statusCode, 404);
  const audit = await w.sql<{ action: string }>("select action from audit_log where action like 'hostprov.%' order by id");
  t.same(audit.map((a) => a.action), ['hostprov.app_registered', 'hostprov.app_registered', 'hostprov.app_registered', 'hostprov.app_changed']);
});

t.test('compute and ports are fixed once the app has a pod', async (t) => {
  t.equal((await w.call('POST', '/apps/third/deploys', { tag: 'v1' })).statusCode, 202);
  t.same(await w.runQueued([DEPLOY_JOB]), [DEPLOY_JOB]);
  const app = (await w.call('GET', '/apps/third')).json();
  t.ok(app.pod_id, 'the first deploy made a pod');
  const ports = await w.call('PUT', '/apps/third', { ...appBody('x', { ports: [{ port: 8080, protocol: 'http' }] }), name: undefined });
  t.equal(ports.statusCode, 409);
  t.match(ports.json(), { reason: 'pod_fixed', field: 'body.ports' });
  const cpu = await w.call('PUT', '/apps/third', { ...appBody('x', { cpu: { flavor: 'cpu3c', vcpus: 4 } }), name: undefined });
  t.match(cpu.json(), { reason: 'pod_fixed', field: 'body.cpu' });
  t.equal((await w.call('PUT', '/apps/third', { ...appBody('x', { image: 'ghcr.io/acm/other' }), name: undefined })).statusCode, 200, 'the image may change');
});

t.test('another org: module off is 404; its officer cannot see acm\'s apps', async (t) => {
  for (const [method, path] of [['GET', '/apps'], ['POST', '/apps'], ['GET', '/apps/site'], ['POST', '/apps/site/deploys'], ['GET', '/apps/site/pod'], ['DELETE', '/apps/site']] as const) {
    const res = await w.call(method, path, method === 'POST' ? {} : undefined, 'beta');
    t.equal(res.statusCode, 404, `${method} ${path} on beta`);
  }
  await w.sql("update organizations set modules = modules || '{\"hostprov\": true}'::jsonb where id = ?", [w.beta.id]);
  const token = (await quad.issueToken(w.beta.id, { scopes: ['hostprov:read', 'hostprov:manage'] })).token;
  const tool = (name: string, args: unknown) => quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(token), payload: { name, arguments: args } });
  t.same((await tool('hostprov.apps', {})).json().result, { apps: [] }, 'beta\'s token lists none of acm\'s apps');
  t.equal((await tool('hostprov.app', { name: 'site' })).json().reason, 'app_not_found');
  t.equal((await tool('hostprov.deploy', { name: 'site', tag: 'v1' })).json().reason, 'app_not_found');
  await w.sql("update organizations set modules = modules || '{\"hostprov\": false}'::jsonb where id = ?", [w.beta.id]);
});

t.test('tools: read and manage scopes; deploy; rollback asks for confirm', async (t) => {
  const read = (await quad.issueToken(w.org.id, { scopes: ['hostprov:read'] })).token;
  const manage = (await quad.issueToken(w.org.id, { scopes: ['hostprov:manage'] })).token;
  const tool = (name: string, args: unknown, as: string) => quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(as), payload: { name, arguments: args } });
  t.equal((await tool('hostprov.deploy', { name: 'site', tag: 'v1' }, read)).json().reason, 'unknown_tool', 'read cannot deploy');
  t.same((await tool('hostprov.apps', {}, read)).json().result.apps.map((a: { name: string }) => a.name), ['model', 'site', 'third']);
  const one = (await tool('hostprov.app', { name: 'third' }, read)).json().result;
  t.match(one, { app: { name: 'third' }, deploys: [{ tag: 'v1', status: 'starting', trigger: 'officer' }] });
  const both = await tool('hostprov.deploy', { name: 'site', tag: 'v1', digest: `sha256:${'b'.repeat(64)}` }, manage);
  t.match(both.json(), { reason: 'validation' }, `exactly one of tag and digest: ${both.body}`);
  const started = (await tool('hostprov.deploy', { name: 'site', digest: `sha256:${'b'.repeat(64)}` }, manage)).json().result;
  t.match(started, { status: 'queued', trigger: 'tool', image: `ghcr.io/acm/site@sha256:${'b'.repeat(64)}` });
  const preview = (await tool('hostprov.rollback', { name: 'site' }, manage)).json();
  t.match(preview, { confirm_required: true });
  const refused = (await tool('hostprov.rollback', { name: 'site', confirm: true }, manage)).json();
  t.equal(refused.reason, 'deploy_in_progress', 'a deploy is queued');
});

t.test('delete: the pod is terminated first; 424 and nothing deleted when the provider fails', async (t) => {
  const podId = (await w.call('GET', '/apps/third')).json().pod_id as string;
  t.ok(fake.pods.some((p) => p.id === podId));
  fake.failNext(503);
  const failed = await w.call('DELETE', '/apps/third');
  t.equal(failed.statusCode, 424, failed.body);
  t.equal(failed.json().reason, 'provider_failed');
  t.equal((await w.call('GET', '/apps/third')).statusCode, 200, 'the app is still there');
  const deleted = await w.call('DELETE', '/apps/third');
  t.equal(deleted.statusCode, 200, deleted.body);
  t.same(deleted.json(), { deleted: 'third', pod_terminated: podId });
  t.notOk(fake.pods.some((p) => p.id === podId), 'the provider no longer has the pod');
  t.equal((await w.call('GET', '/apps/third')).statusCode, 404);
  t.same(await w.sql("select id from hostprov_deploys d where not exists (select 1 from hostprov_apps a where a.id = d.app_id)"), [], 'its deploys went with it');
  const [event] = await w.sql<{ kind: string }>("select kind from notifications where organization_id = ? and kind = 'hostprov.app_deleted'", [w.org.id]);
  t.ok(event, 'event hostprov.app_deleted');
  t.equal((await w.call('DELETE', '/apps/model')).statusCode, 200, 'an app without a pod is deleted without the provider');
  t.equal((await w.call('POST', '/apps', appBody('fourth'))).statusCode, 201, 'room under the limit again');
});
