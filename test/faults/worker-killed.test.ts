// A worker process killed in the middle of a job (kill -9: no shutdown, its job stays locked in graphile-worker's
// queue): another worker notices the dead process (core/src/jobs/liveness.ts) and runs the job again, and the job's
// effect happens once. The job is LeetCode's Post now, whose effect is outside: a message posted on Discord. The
// fake Discord posts the message and then holds its answer, so the worker dies after the effect and before it knew
// of it, the hardest moment for a retry; the retry takes its own claim over and sends the same nonce, which Discord
// enforces, so the message comes back instead of a second one.
import t from 'tap';
import { bearer, signInOfficer, startFakeLeetCode, startSignInWorld, until } from '@quad/core/testing';
import { QUAD } from '../cli/processes.js';
import { ready, spawnQuad, type QuadProcess } from '../startup/support.js';
import { RUN_ID } from '../../core/src/jobs/start.js';

const CHANNEL = '1100000000000000001';

t.test('a worker killed mid-job: the job runs again in another worker and posts once', async (t) => {
  const leetcode = await startFakeLeetCode(t);
  const config = { LEETCODE_API_URL: leetcode.url, LEETCODE_TIMEOUT_MS: 5000 };
  const world = await startSignInWorld(t, { plugins: ['./plugins/leetcode'], orgModules: { leetcode: true }, role: 'api', config });
  const { quad, discord, org } = world;
  const officer = bearer((await signInOfficer(world, world.officer.id)).access_token);
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    quad.orm.em.fork().getConnection().execute(text, params as never[]) as Promise<T[]>;
  const env = Object.fromEntries(Object.entries({
    ...world.discordConfig, ...config,
    DATABASE_URL: quad.databaseUrl, PLUGINS: './plugins/leetcode', SECRET_KEY: 'k'.repeat(40), JOB_SWEEP_MS: 200, JOB_THREADS: 1,
  }).map(([k, v]) => [k, String(v)]));
  /** Worker processes started together; each is known by the pool id it locks jobs with. */
  const startWorkers = async (count: number) => Promise.all(Array.from({ length: count }, async () => {
    const worker = spawnQuad(t, { command: [...QUAD, 'run', '--role', 'worker'], env });
    await ready(worker);
    const started = worker.lines().find((l) => l.includes('"msg":"job worker started"'));
    return { ...worker, pool: JSON.parse(started!).pool as string };
  }));
  const kill = async (worker: QuadProcess) => {
    process.kill(-worker.child.pid!, 'SIGKILL');
    t.match(await worker.exited, { signal: 'SIGKILL' });
  };
  /** The worker whose pool holds the run's job now (the one to kill). */
  const holder = async <W extends { pool: string }>(workers: W[], runId: number) => {
    const [job] = await sql<{ locked_by: string }>(`select locked_by from graphile_worker._private_jobs where (payload::jsonb ->> '${RUN_ID}')::bigint = ?`, [runId]);
    const found = workers.find((w) => w.pool === job?.locked_by);
    if (!found) throw new Error(`no live worker holds run ${runId} (locked by ${job?.locked_by})`);
    return found;
  };
  const run = async (id: number) => (await sql<{ status: string; attempts: number; error: string | null }>(
    'select status, attempts, error from job_runs where id = ?', [id]))[0]!;
  t.equal((await quad.api.inject({ method: 'PUT', url: '/api/leetcode/acm/settings', headers: officer, payload: { channel_id: CHANNEL } })).statusCode, 200);
  const postNow = async () => {
    const res = await quad.api.inject({ method: 'POST', url: '/api/leetcode/acm/post-now', headers: officer, payload: { force: true } });
    t.equal(res.statusCode, 202);
    return res.json().run_id as number;
  };
  const attemptsAtDiscord = () => discord.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/channels/${CHANNEL}/messages`)).length;

  let alive: Awaited<ReturnType<typeof startWorkers>> = [];
  await t.test('killed after the message was posted, before it heard so: one message, the run succeeds', async (t) => {
    alive = await startWorkers(2);
    discord.delayAnswerNext(120_000); // the post is made; its answer never reaches the worker
    const runId = await postNow();
    await until('the first attempt to post', () => discord.messages.length === 1);
    // A run shows running once it has gone on for 100 ms (core/src/jobs/run-record.ts).
    t.match(await until('the run to show running', async () => { const r = await run(runId); return r.status === 'running' && r; }),
      { attempts: 1 }, 'the first attempt waits for Discord\'s answer');
    const first = await holder(alive, runId);
    await kill(first);
    alive = alive.filter((w) => w !== first);

    await until('the run to end', async () => !['queued', 'running'].includes((await run(runId)).status));
    t.match(await run(runId), { status: 'succeeded', attempts: 2, error: null }, 'the other worker ran it again');
    t.equal(attemptsAtDiscord(), 2, 'the retry asked Discord to post again');
    t.equal(discord.messages.length, 1, 'and Discord kept one message (the nonce it enforces was the same)');
    const [post] = await sql<{ status: string; message_id: string }>('select status, message_id from leetcode_posts where organization_id = ?', [org.id]);
    t.same(post, { status: 'posted', message_id: discord.messages[0]!.id }, 'the post records the one message');
    t.match(alive[0]!.output(), new RegExp(`unlocked the jobs of worker processes that stopped.*${first.pool}|${first.pool}.*unlocked the jobs`), 'the worker said whose jobs it ran again');
  });

  await t.test('killed on its last attempt too: the run fails for good and officers are told once', async (t) => {
    alive.push(...await startWorkers(3)); // two are left to sweep: one of them releases the dead ones' jobs
    const before = discord.messages.length;
    discord.delayAnswerNext(120_000, 2);
    const runId = await postNow(); // force: a second post of the day; Post now has two attempts
    await until('the first attempt to post', () => attemptsAtDiscord() === 3);
    const first = await holder(alive, runId);
    await kill(first);
    alive = alive.filter((w) => w !== first);
    await until('the second attempt to post', async () => (await run(runId)).attempts === 2 && attemptsAtDiscord() === 4);
    const second = await holder(alive, runId);
    await kill(second);
    alive = alive.filter((w) => w !== second);
    t.equal(discord.messages.length, before + 1, 'both attempts made one message');

    await until('the run to end', async () => (await run(runId)).status !== 'running');
    t.match(await run(runId), { status: 'failed', error: 'the worker process running its last attempt stopped' });
    t.same(await sql(`select id from graphile_worker._private_jobs where locked_by is not null`), [], 'no job is left locked');
    // The release is logged after its transaction commits; a sweeper that found nothing to claim logs nothing. A
    // second release would come within a few sweeps (JOB_SWEEP_MS is 200 here): give it five before counting.
    const released = (w: QuadProcess) => w.lines().some((l) => l.includes('unlocked the jobs of worker processes') && l.includes(second.pool));
    await until('the release to be logged', () => alive.some(released));
    await new Promise((r) => setTimeout(r, 1000));
    t.equal(alive.filter(released).length, 1, `one of the ${alive.length} live workers released them`);
    const events = await sql<{ data: { run: number } }>(`select data from notifications where organization_id = ? and kind = 'job.failed'`, [org.id]);
    t.same(events.map((e) => e.data), [{ job: 'leetcode.post', run: runId }], 'officers see the failure in the events feed, once');
  });
});
