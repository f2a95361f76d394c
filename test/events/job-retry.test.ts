// POST /api/dashboard/<org>/job-runs/<id>/retry: a failed run of the org runs again with its payload as a new run,
// once, audited; another org's run is 404; a run that did not fail, a one-at-a-time job already going, a module
// switched off or a job no loaded module declares is 409.
import t from 'tap';
import { defineJob, defineModule, Type } from '@quad/core';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';

/** The payloads the jobs saw, in order. */
const seen: unknown[] = [];
let failing = true;
/** Opened by the test: the handler of retrier.hold waits for it. */
let release: () => void = () => {};
let released = Promise.resolve();

const retrier = defineModule({
  name: 'retrier', title: 'Retrier', description: 'Jobs that fail for the retry tests', category: 'Tests',
  jobs: [
    defineJob({
      name: 'retrier.fail', maxAttempts: 1, payload: Type.Object({ n: Type.Integer() }),
      async handler({ payload }) {
        seen.push(payload);
        if (failing) throw new Error('failed on purpose');
      },
    }),
    defineJob({
      name: 'retrier.single', maxAttempts: 1, once: 'org',
      async handler() {
        await released;
        if (failing) throw new Error('single failed on purpose');
      },
    }),
  ],
});

t.test('retrying a failed job run', async (t) => {
  const world = await startSignInWorld(t, { plugins: [retrier], orgModules: { retrier: true } });
  const { quad, org, officer } = world;
  const other = await quad.createOrg({ prefix: 'ieee', modules: { retrier: true } });
  const token = (await signInOfficer(world, officer.id)).access_token;
  const em = () => quad.orm.em.fork();
  const retry = (id: number, prefix = 'acm', headers = bearer(token)) =>
    quad.api.inject({ method: 'POST', url: `/api/dashboard/${prefix}/job-runs/${id}/retry`, headers });
  const failedRun = async (orgId: number, n: number) => {
    const { runId } = await quad.services.startJob(em(), 'retrier.fail', { n }, { orgId });
    t.equal((await quad.waitForRun(runId)).status, 'failed');
    return runId;
  };

  const failed = await failedRun(org.id, 7);

  t.test('needs an officer of the org', async (t) => {
    t.equal((await quad.api.inject({ method: 'POST', url: `/api/dashboard/acm/job-runs/${failed}/retry` })).statusCode, 401);
    const machine = await quad.issueToken(org.id, { scopes: ['tokens:manage'] });
    t.equal((await retry(failed, 'acm', bearer(machine.token))).statusCode, 401, 'a machine token is not an officer');
  });

  t.test('another org\'s run or an unknown id is 404, and nothing runs', async (t) => {
    const theirs = await failedRun(other.id, 1);
    const res = await retry(theirs);
    t.equal(res.statusCode, 404);
    t.match(res.json(), { reason: 'run_not_found' });
    t.equal((await retry(999_999)).statusCode, 404);
    t.equal((await retry(0)).statusCode, 400, 'ids start at 1');
    const [{ count }] = await em().getConnection().execute('select count(*)::int as count from job_runs');
    t.equal(count, 2, 'no run was added');
  });

  t.test('a failed run runs again as a new run with the same payload, once, audited', async (t) => {
    failing = false;
    seen.length = 0;
    const res = await retry(failed);
    t.equal(res.statusCode, 201);
    const body = res.json();
    t.equal(body.retry_of, failed);
    t.match(body.run, { name: 'retrier.fail', status: 'queued' });
    t.not(body.run.id, failed);
    t.equal((await quad.waitForRun(body.run.id)).status, 'succeeded');
    t.same(seen, [{ n: 7 }], 'the same payload');

    const again = await retry(failed);
    t.equal(again.statusCode, 409, 'a second retry of the same run');
    t.match(again.json(), { reason: 'already_retried', retry: body.run.id });

    const [audit] = await em().getConnection().execute(
      "select actor, details from audit_log where organization_id = ? and action = 'job_runs.retry'", [org.id]);
    t.match(audit, { actor: `officer:${officer.id}`, details: { run: failed, retry: body.run.id, job: 'retrier.fail' } });
    const listed = await quad.api.inject({ url: '/api/dashboard/acm/job-runs', headers: bearer(token) });
    t.same(listed.json().items.map((r: { id: number }) => r.id).slice(0, 2), [body.run.id, failed]);
  });

  t.test('a run that did not fail is 409', async (t) => {
    const { runId } = await quad.services.startJob(em(), 'retrier.fail', { n: 1 }, { orgId: org.id });
    t.equal((await quad.waitForRun(runId)).status, 'succeeded');
    const res = await retry(runId);
    t.equal(res.statusCode, 409);
    t.match(res.json(), { reason: 'run_not_failed', status: 'succeeded' });
  });

  t.test('a one-at-a-time job with a run going is 409', async (t) => {
    failing = true;
    const first = (await quad.services.startJob(em(), 'retrier.single', {}, { orgId: org.id })).runId;
    t.equal((await quad.waitForRun(first)).status, 'failed');
    released = new Promise<void>((r) => { release = r; });
    const going = (await quad.services.startJob(em(), 'retrier.single', {}, { orgId: org.id })).runId;
    const res = await retry(first);
    t.equal(res.statusCode, 409);
    t.match(res.json(), { reason: 'job_running' });
    release();
    await quad.waitForRun(going);
    failing = false;
    const later = await retry(first);
    t.equal(later.statusCode, 201, 'once the other run is done, the retry goes');
    t.equal((await quad.waitForRun(later.json().run.id)).status, 'succeeded');
  });

  t.test('a module switched off is 409', async (t) => {
    failing = true;
    const run = await failedRun(org.id, 3);
    await quad.updateOrg(org.id, { modules: {} });
    t.teardown(() => quad.updateOrg(org.id, { modules: { retrier: true } }));
    const res = await retry(run);
    t.equal(res.statusCode, 409);
    t.match(res.json(), { reason: 'module_off', module: 'retrier' });
  });

  t.test('a job no loaded module declares is 409', async (t) => {
    const [row] = await em().getConnection().execute(
      "insert into job_runs (organization_id, name, status, payload) values (?, 'gone.job', 'failed', '{}') returning id", [org.id]);
    const res = await retry(Number(row.id));
    t.equal(res.statusCode, 409);
    t.match(res.json(), { reason: 'job_unavailable' });
  });
});
