// Deploys end to end against the fake provider and its proxy over loopback, job handlers run here as a worker would:
// a missing secret fails the first deploy; the first deploy creates the pod (image repo:tag, env with the secret env,
// ports), health checks through HOSTPROV_PROXY_URL until healthy; a later deploy updates the pod, never turns healthy
// by its deadline, fails (event, problem) and rolls back automatically; manual roll back; the provider refusing; a pod
// the provider lost; the history's paging; the pod route; the 5-minute health check and the sweep of lost deploys.
import t from 'tap';
import { appBody, startHostingWorld } from './world.js';
import { CHECK_JOB, DEPLOY_JOB, HEALTH_JOB } from '../deploys.js';

const w = await startHostingWorld(t, { HOSTPROV_HEALTH_POLL_SECONDS: 1 });
const { quad, fake } = w;
const FAR = '2999-01-01T00:00:00.000Z';
const app = async (name = 'site') => (await w.call('GET', `/apps/${name}`)).json();
const history = async (name = 'site') => (await w.call('GET', `/apps/${name}/deploys`)).json().deploys as { id: number; tag: string; status: string; trigger: string; rollback_of: number | null; error: string | null; image: string }[];
const events = async (kind: string) => (await w.sql<{ title: string; message: string }>('select title, message from notifications where organization_id = ? and kind = ? and problem_key is null order by id', [w.org.id, kind]));
const problem = async () => (await w.sql<{ status: string; message: string }>("select status, message from notifications where organization_id = ? and problem_key = 'hostprov.deploy_failed:site'", [w.org.id]))[0];
const podOf = (id: string) => fake.pods.find((p) => p.id === id)!;
const deploy = (body: unknown, name = 'site') => w.call('POST', `/apps/${name}/deploys`, body);

t.test('a missing secret fails the first deploy with a clear message; nothing to roll back to', async (t) => {
  t.equal((await w.call('POST', '/apps', appBody('site', { secret_env: { API_TOKEN: 'site.token' } }))).statusCode, 201);
  t.equal((await w.call('GET', '/apps/site/pod')).statusCode, 404, 'no pod before the first deploy');
  const started = await deploy({ tag: 'v0' });
  t.equal(started.statusCode, 202, started.body);
  t.match(started.json(), { status: 'queued', tag: 'v0', digest: null, image: 'ghcr.io/acm/site:v0', trigger: 'officer' });
  t.same(await w.runQueued([DEPLOY_JOB]), [DEPLOY_JOB]);
  const [d] = await history();
  t.match(d, { status: 'failed', error: /API_TOKEN needs the org secret hostprov.env_site.token, which is not set/ });
  t.equal(fake.pods.length, 0, 'no pod was made');
  t.match(await problem(), { status: 'open', message: /hostprov.env_site.token/ });
  t.equal((await events('hostprov.deploy_started')).length, 1);
  t.equal((await events('hostprov.deploy_failed')).length, 1);
  t.same(await w.runQueued([DEPLOY_JOB]), [], 'no automatic roll back without a healthy deploy');
});

t.test('the first deploy creates the pod; health checks through the proxy until healthy', async (t) => {
  await quad.services.secrets.set(quad.emFor(w.org.id), w.org.id, 'hostprov.env_site.token', 's3cret');
  t.equal((await deploy({ tag: 'v1' })).statusCode, 202);
  const busy = await deploy({ tag: 'v1b' });
  t.equal(busy.statusCode, 409, 'one deploy of an app at a time');
  t.equal(busy.json().reason, 'deploy_in_progress');
  t.equal((await deploy({ tag: 'x', digest: `sha256:${'a'.repeat(64)}` })).statusCode, 400, 'both tag and digest');
  t.equal((await deploy({})).statusCode, 400, 'neither');
  t.equal((await deploy({ tag: 'bad tag' })).statusCode, 400);
  t.equal((await deploy({ tag: 'v1' }, 'nope')).statusCode, 404);

  t.same(await w.runQueued([DEPLOY_JOB]), [DEPLOY_JOB]);
  const made = await app();
  t.ok(made.pod_id, 'the pod is recorded on the app');
  const pod = podOf(made.pod_id);
  t.match(pod, { name: 'hostprov-site', image: 'ghcr.io/acm/site:v1', cpu: { id: 'cpu3c', vcpuCount: 2 }, ports: ['8080/http', '9000/tcp'] });
  t.same(pod.env, { MODE: 'production', API_TOKEN: 's3cret' }, 'env with the secret env resolved');
  t.match(made, { deploying: true, latest_deploy: { status: 'starting', health_deadline_at: String }, current_deploy: null });
  t.notMatch(JSON.stringify(made), 's3cret', 'the secret value is in no answer');

  fake.proxy(made.pod_id, 8080, { status: 503 });
  t.same(await w.runQueued([CHECK_JOB]), [CHECK_JOB]);
  t.match(await app(), { deploying: true, health: { status: 'unknown' }, latest_deploy: { status: 'starting' } });
  t.match(fake.proxyRequests.at(-1), { podId: made.pod_id, port: 8080, method: 'GET', path: '/healthz' });
  fake.proxy(made.pod_id, 8080, { status: 200, body: 'ok' });
  t.same(await w.runQueued([CHECK_JOB]), [CHECK_JOB], 'the check ran again later');
  const live = await app();
  t.match(live, { deploying: false, current_deploy: { tag: 'v1', status: 'healthy' }, health: { status: 'healthy', detail: /answered 200/ } });
  t.equal(await problem(), undefined, 'the problem cleared');
  t.match(await events('hostprov.deployed'), [{ title: /site is live: ghcr.io\/acm\/site:v1/ }]);
  t.same(await w.runQueued([CHECK_JOB]), [], 'no more checks');

  const podRes = await w.call('GET', '/apps/site/pod');
  t.equal(podRes.statusCode, 200, podRes.body);
  t.match(podRes.json(), { pod_id: made.pod_id, status: 'RUNNING', image: 'ghcr.io/acm/site:v1', cpu: { flavor: 'cpu3c', vcpus: 2 } });
  const none = await w.call('POST', '/apps/site/rollback');
  t.equal(none.statusCode, 409, 'nothing before the only healthy deploy');
  t.equal(none.json().reason, 'no_healthy_deploy');
});

t.test('a deploy never healthy by its deadline fails and rolls back to the last healthy one', async (t) => {
  const podId = (await app()).pod_id as string;
  t.equal((await deploy({ tag: 'v2' })).statusCode, 202);
  t.same(await w.runQueued([DEPLOY_JOB]), [DEPLOY_JOB]);
  t.equal(podOf(podId).image, 'ghcr.io/acm/site:v2', 'the pod was updated, not made again');
  t.equal(fake.pods.length, 1);
  fake.proxy(podId, 8080, { status: 500 });
  t.same(await w.runQueued([CHECK_JOB], { now: FAR }), [CHECK_JOB]);
  const [rollback, failed] = await history();
  t.match(failed, { tag: 'v2', status: 'failed', error: /Not healthy within 600 s: GET \/healthz on port 8080 answered 500, expected 200/ });
  t.match(rollback, { tag: 'v1', status: 'queued', trigger: 'auto_rollback' });
  t.match(await problem(), { status: 'open', message: /site:v2: Not healthy .* Rolling back to ghcr.io\/acm\/site:v1/ });
  t.equal((await events('hostprov.rolled_back')).length, 1);
  t.match(await app(), { current_deploy: { tag: 'v1' }, deploying: true });

  t.same(await w.runQueued([DEPLOY_JOB]), [DEPLOY_JOB]);
  t.equal(podOf(podId).image, 'ghcr.io/acm/site:v1', 'the pod is back on v1');
  fake.proxy(podId, 8080, { status: 200 });
  t.same(await w.runQueued([CHECK_JOB]), [CHECK_JOB]);
  const back = await app();
  t.match(back, { current_deploy: { id: rollback!.id, tag: 'v1', trigger: 'auto_rollback', status: 'healthy' }, deploying: false });
  const v1 = (await history()).find((d) => d.tag === 'v1' && d.trigger === 'officer')!;
  t.equal(back.current_deploy.rollback_of, v1.id, 'marked as the roll back of the v1 deploy');
  t.equal(await problem(), undefined);
});

t.test('manual roll back; the provider refusing; a digest; a pod the provider lost', async (t) => {
  const podId = (await app()).pod_id as string;
  t.equal((await deploy({ tag: 'v3' })).statusCode, 202);
  await w.runQueued([DEPLOY_JOB]);
  await w.runQueued([CHECK_JOB]);
  t.match(await app(), { current_deploy: { tag: 'v3' } });
  const rolled = await w.call('POST', '/apps/site/rollback');
  t.equal(rolled.statusCode, 202, rolled.body);
  t.match(rolled.json(), { tag: 'v1', trigger: 'rollback', status: 'queued' });
  t.equal((await w.call('POST', '/apps/site/rollback')).json().reason, 'deploy_in_progress');
  await w.runQueued([DEPLOY_JOB]);
  await w.runQueued([CHECK_JOB]);
  t.match(await app(), { current_deploy: { tag: 'v1', trigger: 'rollback' } });

  fake.refuseNext(400, 'no capacity for cpu3c');
  const digest = `sha256:${'c'.repeat(64)}`;
  t.equal((await deploy({ digest })).statusCode, 202);
  await w.runQueued([DEPLOY_JOB]);
  const [auto, refused] = await history();
  t.match(refused, { status: 'failed', image: `ghcr.io/acm/site@${digest}`, error: 'The pod provider refused: no capacity for cpu3c' });
  t.match(auto, { trigger: 'auto_rollback', status: 'queued' });
  await w.runQueued([DEPLOY_JOB]);
  await w.runQueued([CHECK_JOB]);

  fake.remove(podId);
  t.match((await w.call('GET', '/apps/site/pod')).json(), { pod_id: podId, status: 'GONE' });
  t.equal((await deploy({ tag: 'v4' })).statusCode, 202);
  await w.runQueued([DEPLOY_JOB]);
  const fresh = (await app()).pod_id as string;
  t.not(fresh, podId, 'a new pod took the lost one\'s place');
  t.equal(podOf(fresh).image, 'ghcr.io/acm/site:v4');
  fake.proxy(fresh, 8080, { status: 200 });
  await w.runQueued([CHECK_JOB]);
  t.match(await app(), { current_deploy: { tag: 'v4' } });

  fake.failNext(502);
  const failing = await w.call('GET', '/apps/site/pod');
  t.equal(failing.statusCode, 424, 'the provider failing');
  t.equal(failing.json().reason, 'provider_failed');
});

t.test('the history pages newest first', async (t) => {
  const all = await history();
  const first = (await w.call('GET', '/apps/site/deploys?limit=3')).json();
  t.same(first.deploys.map((d: { id: number }) => d.id), all.slice(0, 3).map((d) => d.id));
  const next = (await w.call('GET', `/apps/site/deploys?limit=3&before=${first.next_before}`)).json();
  t.same(next.deploys.map((d: { id: number }) => d.id), all.slice(3, 6).map((d) => d.id));
  t.equal((await w.call('GET', '/apps/site/deploys?limit=0')).statusCode, 400);
  t.equal((await w.call('GET', '/apps/site/deploys?limit=500')).statusCode, 400);
});

t.test('the 5-minute health check: live apps, bounded, not twice in a row; lost deploys fail', async (t) => {
  const podId = (await app()).pod_id as string;
  fake.proxy(podId, 8080, { status: 404 });
  const before = fake.proxyRequests.length;
  const later = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
  // The deploy made it healthy a moment ago: the first run that checks it comes 5 minutes later.
  await w.runJob(HEALTH_JOB, {}, null);
  t.equal(fake.proxyRequests.length, before, 'just checked by its deploy');
  await w.runJob(HEALTH_JOB, { now: later(5) }, null);
  t.match(await app(), { health: { status: 'unhealthy', detail: 'GET /healthz on port 8080 answered 404, expected 200' } });
  t.equal(fake.proxyRequests.length, before + 1);
  await w.runJob(HEALTH_JOB, { now: later(6) }, null);
  t.equal(fake.proxyRequests.length, before + 1, 'checked at most every 4 minutes');
  fake.proxy(podId, 8080, 'hang');
  await w.sql("update hostprov_apps set manifest = jsonb_set(manifest, '{health,timeout_seconds}', '1') where name = 'site'");
  await w.sql("update hostprov_deploys d set manifest = jsonb_set(d.manifest, '{health,timeout_seconds}', '1') from hostprov_apps a where a.current_deploy_id = d.id");
  await w.runJob(HEALTH_JOB, { now: later(10) }, null);
  t.match(await app(), { health: { status: 'unhealthy', detail: 'GET /healthz on port 8080 did not answer within 1 s' } });

  // A deploy whose job was lost (a worker died): queued 20 minutes ago.
  t.equal((await deploy({ tag: 'v5' })).statusCode, 202);
  await w.sql("update hostprov_deploys set created_at = now() - interval '20 minutes' where tag = 'v5'");
  fake.proxy(podId, 8080, { status: 200 });
  await w.runJob(HEALTH_JOB, {}, null);
  const [auto, lost] = await history();
  t.match(lost, { tag: 'v5', status: 'failed', error: /The deploy was lost \(its deploy job did not finish\)/ });
  t.match(auto, { trigger: 'auto_rollback', tag: 'v4' });
  t.same(await w.runQueued([DEPLOY_JOB]), [DEPLOY_JOB, DEPLOY_JOB], 'the lost job (a no-op now) and the roll back');
  t.match((await history())[0], { trigger: 'auto_rollback', status: 'starting' });
});
