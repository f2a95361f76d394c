// Jobs: a run end to end with its record, one-at-a-time 409, payload checks, failures recorded for good.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';
import { forkFor } from '../core/src/db/orm.js';
import sample, { SampleItem } from './fixtures/sample-module.js';

t.test('jobs', async (t) => {
  const quad = await startTestApp(t, { plugins: [sample] });
  const org = await quad.createOrg({ prefix: 'acm', modules: { sample: true } });
  const sql = (q: string) => quad.orm.em.fork().getConnection().execute(q);

  t.test('a job runs end to end and its run is recorded', async (t) => {
    const res = await quad.api.inject({ method: 'POST', url: '/api/sample/acm/work', payload: { ms: 0 } });
    t.equal(res.statusCode, 202);
    const run = await quad.waitForRun(res.json().run_id);
    t.equal(run.status, 'succeeded');
    t.equal(run.name, 'sample.work');
    t.equal(run.scopeKey, `org:${org.id}`);
    t.equal(run.attempts, 1);
    t.ok(run.startedAt && run.finishedAt && run.finishedAt >= run.startedAt);
    t.equal(run.error, null);
    const items = await forkFor(quad.orm, org.id).find(SampleItem, {});
    t.same(items.map((i) => i.label), ['work done after 0 ms'], 'the handler wrote in the job\'s org');
  });

  t.test('a second start of a one-at-a-time job while one runs is 409', async (t) => {
    const first = await quad.api.inject({ method: 'POST', url: '/api/sample/acm/work', payload: { ms: 400 } });
    t.equal(first.statusCode, 202);
    const second = await quad.api.inject({ method: 'POST', url: '/api/sample/acm/work', payload: { ms: 0 } });
    t.equal(second.statusCode, 409);
    t.match(second.json(), { error: /sample\.work is already running/, reason: 'job_running', job: 'sample.work' });
    await quad.waitForRun(first.json().run_id);
    const third = await quad.api.inject({ method: 'POST', url: '/api/sample/acm/work', payload: { ms: 0 } });
    t.equal(third.statusCode, 202, 'free again once the run is done');
    await quad.waitForRun(third.json().run_id);
    const queued = await sql("select count(*)::int as n from job_runs where status = 'queued' and name = 'sample.work'");
    t.equal(queued[0].n, 0, 'the refused start left no run behind');
  });

  t.test('one-at-a-time per key', async (t) => {
    const em = quad.orm.em.fork();
    const a = await quad.services.startJob(em, 'sample.keyed', { source: 1, ms: 300 });
    await t.rejects(quad.services.startJob(em, 'sample.keyed', { source: 1, ms: 0 }), { name: 'HttpError', statusCode: 409 });
    const b = await quad.services.startJob(em, 'sample.keyed', { source: 2, ms: 0 });
    t.equal(b.scopeKey, 'key:source:2');
    await quad.waitForRun(a.runId);
    await quad.waitForRun(b.runId);
  });

  t.test('a bad payload is refused with 400 and nothing is queued', async (t) => {
    const em = quad.orm.em.fork();
    await t.rejects(quad.services.startJob(em, 'sample.work', { ms: 'soon' } as never, { orgId: org.id }), {
      statusCode: 400, message: 'Invalid payload for sample.work: ms: Expected integer', reason: 'invalid_job_payload',
    });
    await t.rejects(quad.services.startJob(em, 'sample.work', { ms: 1, extra: true }, { orgId: org.id }), { name: 'HttpError', statusCode: 400 });
    const rows = await sql("select count(*)::int as n from job_runs where status = 'queued'");
    t.equal(rows[0].n, 0);
  });

  t.test('a job that fails for good is recorded, logged and notified', async (t) => {
    const res = await quad.api.inject({ method: 'POST', url: '/api/sample/acm/work', payload: { ms: 0, fail: true } });
    const run = await quad.waitForRun(res.json().run_id);
    t.equal(run.status, 'failed');
    // A bug's own message stays in the error log; officers and webhooks read a generic one.
    t.equal(run.error, 'Internal error (details in the error log)');
    const [logged] = await sql("select * from error_log where source = 'job'");
    t.equal(logged.message, 'sample work failed on purpose');
    t.equal(logged.origin, 'sample.work');
    t.equal(logged.organization_id, org.id);
    t.match(logged.log_line, /job sample\.work failed for good/);
    const [note] = await sql("select * from notifications where kind = 'job.failed'");
    t.equal(note.organization_id, org.id);
    t.match(note.title, /sample\.work/);
  });

  t.test('a job that refuses on purpose keeps its own message for officers', async (t) => {
    const res = await quad.api.inject({ method: 'POST', url: '/api/sample/acm/work', payload: { ms: 0, refuse: true } });
    const run = await quad.waitForRun(res.json().run_id);
    t.equal(run.status, 'failed');
    t.equal(run.error, 'The sample input was refused');
  });

  t.test('enqueueing is part of the caller\'s transaction', async (t) => {
    const em = quad.orm.em.fork();
    await t.rejects(em.transactional(async (tem) => {
      await quad.services.startJob(tem, 'sample.keyed', { source: 99, ms: 0 });
      throw new Error('roll back');
    }), /roll back/);
    const runs = await sql("select count(*)::int as n from job_runs where scope_key = 'key:source:99'");
    t.equal(runs[0].n, 0);
    const jobs = await sql("select count(*)::int as n from graphile_worker._private_jobs where payload->>'source' = '99'");
    t.equal(jobs[0].n, 0);
  });

  t.test('a start of a taken scope waits for the transaction holding it: 409 if it commits, queued if it rolls back', async (t) => {
    const settle = (p: Promise<{ runId: number }>) => p.then((run) => ({ run, err: null }), (err: unknown) => ({ run: null, err }));
    // Until a start is seen waiting on a lock in the database, the holder neither commits nor rolls back.
    const blocked = async () => {
      for (;;) {
        const [row] = await sql("select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%insert into job_runs%'");
        if (row.n > 0) return;
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const start = (em = quad.orm.em.fork()) => quad.services.startJob(em, 'sample.keyed', { source: 77, ms: 0 });

    let second!: ReturnType<typeof settle>;
    await quad.orm.em.fork().transactional(async (tem) => {
      await start(tem);
      second = settle(start());
      await blocked();
    });
    const refused = await second;
    t.match(refused.err, { name: 'HttpError', statusCode: 409 }, 'the holder committed: the waiting start is refused');

    const runs = await sql("select id from job_runs where scope_key = 'key:source:77'");
    await Promise.all(runs.map((r) => quad.waitForRun(Number(r.id))));
    let third!: ReturnType<typeof settle>;
    await t.rejects(quad.orm.em.fork().transactional(async (tem) => {
      await start(tem);
      third = settle(start());
      await blocked();
      throw new Error('roll back');
    }), /roll back/);
    const queued = await third;
    t.equal(queued.err, null, 'the holder rolled back: the waiting start takes the slot');
    await quad.waitForRun(queued.run!.runId);
  });
});

t.test('core.prune deletes old finished runs and jobs given up on', async (t) => {
  const quad = await startTestApp(t, { plugins: [sample] });
  const sql = (q: string) => quad.orm.em.fork().getConnection().execute(q);
  await sql(`insert into job_runs (name, status, queued_at, finished_at) values
    ('old', 'succeeded', now() - interval '40 days', now() - interval '40 days'),
    ('recent', 'failed', now() - interval '2 days', now() - interval '2 days'),
    ('running', 'running', now() - interval '40 days', null)`);
  await sql(`select graphile_worker.add_job('gone', '{}'::json, max_attempts => 1, run_at => now() + interval '1 hour')`);
  await sql(`update graphile_worker._private_jobs set attempts = 1, updated_at = now() - interval '8 days'`);
  const run = await quad.services.startJob(quad.orm.em.fork(), 'core.prune', {});
  t.equal((await quad.waitForRun(run.runId)).status, 'succeeded');
  const names = (await sql("select name from job_runs where name in ('old', 'recent', 'running') order by name")).map((r) => r.name);
  t.same(names, ['recent', 'running']);
  const [jobs] = await sql("select count(*)::int as n from graphile_worker._private_jobs where task_id in (select id from graphile_worker._private_tasks where identifier = 'gone')");
  t.equal(jobs.n, 0);
});
