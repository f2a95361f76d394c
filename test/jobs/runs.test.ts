// Job runs as officers see them: a short run goes from queued to its end, a long one shows running while it goes
// on, a late running mark never undoes the run's end, a retry waits queued, and the org handed to a handler is an
// entity of the run's fork. A cron tick is one row across its attempts, failed for good when its worker died; an org's
// run lost so is announced as job.failed to handlers with the org's handle.
import t from 'tap';
import { defineJob, defineModule } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LOST_RUN_ERROR } from '../../core/src/jobs/liveness.js';

/** Opened by the test: the handler of probe.hold waits for it. */
let release: () => void = () => {};
let released = Promise.resolve();
function hold() {
  released = new Promise<void>((r) => { release = r; });
}

/** Until `check` returns a value (conditions, not wall time; the deadline only turns a hang into a failure). */
async function waitFor<T>(check: () => Promise<T | null | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value != null) return value;
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The running mark of a run, seen waiting for a row lock. */
const markBlocked = (em: EntityManager) => waitFor(async () => {
  const [row] = await em.getConnection().execute(
    "select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like 'update job_runs%set status = ''running''%'");
  return row;
}, 'the running mark to wait for the row lock');

const probe = defineModule({
  name: 'probe', title: 'Probe', description: 'Jobs for the job run tests', category: 'Tests',
  jobs: [
    defineJob({ name: 'probe.hold', async handler() { await released; } }),
    defineJob({
      name: 'probe.flaky', maxAttempts: 2,
      async handler({ em, attempt }) {
        if (attempt > 1) return;
        await markBlocked(em);
        throw new Error('first attempt fails');
      },
    }),
    defineJob({
      name: 'probe.rename',
      async handler({ em, org }) {
        org!.name = 'Renamed by a job';
        await em.flush();
      },
    }),
    defineJob({ name: 'probe.tick', async handler() {} }),
    defineJob({ name: 'probe.lost', async handler() {} }),
    defineJob({
      name: 'probe.flakytick', maxAttempts: 2,
      async handler({ attempt }) {
        if (attempt === 1) throw new Error('first attempt fails');
      },
    }),
  ],
  eventHandlers: [{
    events: ['job.failed'],
    async handler({ db }, event) {
      const row = await db.one<{ n: number }>`select count(*)::int as n from job_runs where ${db.inOrg()} and status = 'failed'`;
      announced.push({ org: db.org, job: String(event.data.job), failedRuns: row!.n });
    },
  }],
});

/** What the job.failed handler saw, through its org's handle. */
const announced: { org: number; job: string; failedRuns: number }[] = [];

t.test('job runs', async (t) => {
  // Sweeps often, for the dead worker's cron tick below.
  const quad = await startTestApp(t, { plugins: [probe], config: { JOB_SWEEP_MS: 100 } });
  const org = await quad.createOrg({ prefix: 'acm', modules: { probe: true } });
  const em = () => quad.orm.em.fork();
  const sql = (q: string, params: unknown[] = []) => em().getConnection().execute(q, params);
  const runRow = async (id: number) => (await sql('select * from job_runs where id = ?', [id]))[0];

  t.test('a long run shows running while its handler goes on, and keeps the start it showed', async (t) => {
    hold();
    const { runId } = await quad.services.startJob(em(), 'probe.hold', {}, { orgId: org.id });
    const running = await waitFor(async () => {
      const row = await runRow(runId);
      return row.status === 'running' ? row : null;
    }, 'the run to show running');
    t.ok(running.started_at, 'its start is shown');
    t.equal(running.finished_at, null);
    t.equal(running.attempts, 1);
    release();
    t.equal((await quad.waitForRun(runId)).status, 'succeeded');
    const [ended] = await sql('select started_at, started_at <= finished_at as ordered from job_runs where id = ?', [runId]);
    t.equal(ended.started_at, running.started_at, 'the start shown while it ran is kept');
    t.equal(ended.ordered, true);
  });

  t.test('a running mark held up in the database never undoes the run\'s end; a retry waits queued', async (t) => {
    // Due only once its row is locked: its running mark must find the lock, however soon it is sent.
    const { runId } = await quad.services.startJob(em(), 'probe.flaky', {}, { orgId: org.id, runAt: new Date(Date.now() + 3_600_000) });
    const job = "payload->>'__quad_run' = ?";
    // The row stays locked until the handler has seen its running mark wait and failed the attempt.
    await em().transactional(async (tem) => {
      await tem.getConnection().execute('select 1 from job_runs where id = ? for update', [runId], 'all', tem.getTransactionContext());
      await sql(`update graphile_worker._private_jobs set run_at = now() where ${job}`, [String(runId)]);
      await markBlocked(tem);
    });
    // graphile-worker records the failed attempt only after the run's row was written.
    await waitFor(async () => {
      const [failed] = await sql(`select 1 from graphile_worker._private_jobs where ${job} and attempts = 1 and locked_at is null`, [String(runId)]);
      return failed;
    }, 'graphile-worker to record the failed attempt');
    const between = await runRow(runId);
    t.equal(between.status, 'queued', 'waiting for its retry, not running');
    t.equal(between.error, 'Internal error (details in the error log)');
    t.equal(between.attempts, 1);
    t.equal(between.finished_at, null);
    const run = await quad.waitForRun(runId);
    t.equal(run.status, 'succeeded');
    t.equal(run.attempts, 2);
    t.equal(run.error, null);
    t.ok(run.finishedAt! >= run.startedAt!);
  });

  t.test('the org of a run is an entity of its fork: a handler may change it and flush', async (t) => {
    const { runId } = await quad.services.startJob(em(), 'probe.rename', {}, { orgId: org.id });
    t.equal((await quad.waitForRun(runId)).status, 'succeeded');
    const [row] = await sql('select name from organizations where id = ?', [org.id]);
    t.equal(row.name, 'Renamed by a job');
  });

  t.test('a cron run is recorded without an org, from running to its end', async (t) => {
    await sql("select graphile_worker.add_job('probe.tick', json_build_object('_cron', json_build_object('ts', now(), 'backfilled', false)))");
    const run = await waitFor(async () => {
      const [row] = await sql("select *, started_at <= finished_at as ordered from job_runs where name = 'probe.tick' and status = 'succeeded'");
      return row;
    }, 'the cron run to succeed');
    t.equal(run.organization_id, null);
    t.equal(run.attempts, 1);
    t.same(run.payload, {}, 'cron\'s own keys are not the payload');
    t.equal(run.ordered, true);
  });

  /** Adds a cron tick of `task` as graphile-worker's cron does (its `_cron` key); its job id. */
  const addCronTick = async (task: string, runAt = 'now()') => {
    const [job] = await sql(`select (graphile_worker.add_job(?, json_build_object('_cron', json_build_object('ts', now(), 'backfilled', false)), run_at := ${runAt})).id`, [task]);
    return String(job.id);
  };

  t.test('a cron tick that fails and is retried is one run: queued between its attempts, then its end', async (t) => {
    const jobId = await addCronTick('probe.flakytick');
    const between = await waitFor(async () => {
      const [row] = await sql("select * from job_runs where name = 'probe.flakytick' and status = 'queued'");
      return row;
    }, 'the first attempt to fail');
    t.equal(between.attempts, 1);
    t.equal(between.finished_at, null, 'waiting for its retry');
    // The retry is due in a few seconds (graphile-worker's backoff): now.
    await sql('update graphile_worker._private_jobs set run_at = now() where id = ?', [jobId]);
    const ended = await waitFor(async () => {
      const [row] = await sql("select * from job_runs where name = 'probe.flakytick' and status <> 'queued' and status <> 'running'");
      return row;
    }, 'the retry to end');
    t.match(ended, { id: between.id, status: 'succeeded', attempts: 2, error: null }, 'the retry ended the same row');
    t.same(await sql("select id from job_runs where name = 'probe.flakytick'"), [{ id: between.id }], 'one row for the tick');
  });

  t.test('a cron tick whose worker died on its last attempt fails for good, its row with it', async (t) => {
    // A tick locked by a worker process that no longer lives (nobody holds its liveness lock), on its last attempt.
    const jobId = await addCronTick('probe.tick', "now() + interval '1 hour'");
    await sql("update graphile_worker._private_jobs set locked_by = 'dead-worker', locked_at = now(), attempts = max_attempts where id = ?", [jobId]);
    const [row] = await sql("insert into job_runs (name, status, attempts, started_at, worker_job_id) values ('probe.tick', 'running', 25, now(), ?) returning id", [jobId]);
    const failed = await waitFor(async () => {
      const [r] = await sql("select * from job_runs where id = ? and status = 'failed'", [row.id]);
      return r;
    }, 'the sweep to fail the tick\'s run');
    t.equal(failed.error, LOST_RUN_ERROR);
    t.ok(failed.finished_at, 'it has ended');
    t.same(await sql('select locked_by, attempts >= max_attempts as exhausted from graphile_worker._private_jobs where id = ?', [jobId]),
      [{ locked_by: null, exhausted: true }], 'the job is unlocked and failed for good: it will not run again');
  });

  t.test('an org\'s run whose worker died on its last attempt is announced to handlers, which get the org\'s handle', async (t) => {
    const other = await quad.createOrg({ prefix: 'ieee', modules: { probe: true } });
    const { runId: otherRun } = await quad.services.startJob(em(), 'probe.lost', {}, { orgId: other.id, runAt: new Date(Date.now() + 3_600_000) });
    await sql("update job_runs set status = 'failed' where id = ?", [otherRun]);
    const { runId } = await quad.services.startJob(em(), 'probe.lost', {}, { orgId: org.id, runAt: new Date(Date.now() + 3_600_000) });
    await sql(`update graphile_worker._private_jobs set locked_by = 'dead-worker', locked_at = now(), attempts = max_attempts
      where payload->>'__quad_run' = ?`, [String(runId)]);
    const seen = await waitFor(async () => announced.find((a) => a.job === 'probe.lost') ?? null, 'the sweep to announce the lost run');
    t.same(seen, { org: org.id, job: 'probe.lost', failedRuns: 1 }, 'the handler read its own org\'s runs only (the other org has a failed one too)');
    t.equal((await runRow(runId)).status, 'failed');
  });
});
