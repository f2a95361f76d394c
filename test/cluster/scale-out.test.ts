// Scale-out (issue 22): two API and two worker processes of the built `quad` on one database, on loopback, as a
// deployment scales them (README "Scaling out"). What one process does, the others honour exactly: sign-in codes,
// revocations, rate and count limits, one-at-a-time jobs, cron runs, singleton daemons; and a rolling restart of one
// API loses no request that a client retries on the other. The processes start once and serve every subtest.
// tap: a process of its own (it waits for a minute's cron tick, up to a minute, and for room in the minute).
import pg from 'pg';
import t from 'tap';
import { createTestDatabase, discordSettings, roomInMinute, startFakeDiscord } from '@quad/core/testing';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import scale from '../fixtures/scale-module.js';
import { builtFixture, eventually, request, sharedSettings, startNode, stopNode, type Answer, type QuadNode } from './cluster.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The file's own test, for processes that outlive the subtest that starts them. */
const root = t;

// ---- The world: a database, a fake Discord with an org's server and its officer, four processes.
const db = await createTestDatabase([...CORE_MODULES, scale]);
t.teardown(() => db.drop());
const sql = new pg.Client({ connectionString: db.url });
await sql.connect();
t.teardown(() => sql.end());
const rows = async <T = Record<string, unknown>>(text: string, values: unknown[] = []) => (await sql.query(text, values)).rows as T[];

const discord = await startFakeDiscord();
t.teardown(() => discord.close());
const guild = discord.addGuild({ name: 'ACM Server' });
const officerRole = discord.addRole(guild.id, { name: 'Officers' });
const officer = discord.addUser({ username: 'ada' });
discord.addMember(guild.id, officer.id, [officerRole.id]);
await sql.query(
  `insert into organizations (prefix, name, discord_guild_id, officer_role_id, modules) values ('acm', 'ACM', $1, $2, '{"scale": true}')`,
  [guild.id, officerRole.id],
);

const env = sharedSettings(t, {
  DATABASE_URL: db.url,
  PLUGINS: await builtFixture(t, 'test/fixtures/scale-module.ts', 'test/fixtures/scale-migrations'),
  ...Object.fromEntries(Object.entries(discordSettings(discord)).map(([k, v]) => [k, String(v)])),
  SYS_ADMIN: officer.id,
  DAEMON_RETRY_MS: '500',
  // Four processes and two test files share the database server's connections.
  DATABASE_POOL_MAX: '4',
  JOB_THREADS: '2',
});
// Workers first: the cron subtest waits for the first minute boundary after both are up, the sooner the better.
const workers = await Promise.all([startNode(t, 'worker', env), startNode(t, 'worker', env)]);
const [{ now: workersUp }] = await rows<{ now: Date }>('select now()');
const apis = await Promise.all([startNode(t, 'api', env), startNode(t, 'api', env)]);
const [A, B] = apis as [QuadNode, QuadNode];

/** Poll `read` until it answers a non-empty list (at most `timeoutMs`); the last answer. */
async function waitFor<T>(read: () => Promise<T[]>, timeoutMs: number): Promise<T[]> {
  let last: T[] = [];
  await eventually(async () => (last = await read()).length > 0, timeoutMs);
  return last;
}

/** The API for the i-th of several calls: concurrent calls alternate between the two processes. */
const api = (i: number) => apis[i % 2]!;
const reasons = (answers: Answer[]) => answers.map((a) => `${a.status} ${String(a.body?.reason ?? '')}`.trim());

/** Officer sign-in over HTTP as a browser does it, started on one API and called back on another: the one-time code. */
async function signInCode(login: QuadNode, callback: QuadNode): Promise<string> {
  const start = await fetch(`${login.url}/api/auth/login`, { redirect: 'manual' });
  if (start.status !== 302) throw new Error(`login answered ${start.status}`);
  const cookie = start.headers.getSetCookie()[0]!.split(';')[0]!;
  discord.signInAs(officer.id);
  const authorize = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  const back = new URL(authorize.headers.get('location')!);
  const done = await fetch(`${callback.url}${back.pathname}${back.search}`, { redirect: 'manual', headers: { cookie } });
  const code = done.status === 302 ? new URL(done.headers.get('location')!).searchParams.get('code') : null;
  if (!code) throw new Error(`callback answered ${done.status} ${done.headers.get('location')}`);
  return code;
}

interface TokenPair { access_token: string; refresh_token: string }
const pairs: TokenPair[] = [];

t.test('a sign-in code fired at both APIs at once is exchanged exactly once', async (t) => {
  for (let round = 0; round < 3; round++) {
    // The session cookie of one process is read by the other (one SECRET_KEY): sign-in may hop between them.
    const code = await signInCode(api(round), api(round + 1));
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => request(api(i).url, 'POST', '/api/auth/exchange', { body: { code } })));
    const won = answers.filter((a) => a.status === 200);
    t.equal(won.length, 1, `round ${round}: one exchange of six gets the tokens`, { answers: reasons(answers) });
    t.same(answers.filter((a) => a.status !== 200).map((a) => a.body), Array(5).fill({ error: 'The sign-in code is invalid, used or expired; sign in again', reason: 'invalid_code' }));
    if (won[0]) pairs.push(won[0].body as unknown as TokenPair);
  }
  t.same(await rows('select count(*)::int as n from refresh_tokens'), [{ n: 3 }], 'one refresh token per code: the refused exchanges wrote nothing');
  t.same(await rows('select count(*)::int as n from sign_in_codes'), [{ n: 0 }], 'every code is used up');
});

t.test('a token revoked through one API is refused by the other promptly', async (t) => {
  // Well under the 30 s a process may keep a verified token: only the NOTIFY can make B refuse within it.
  const PROMPTLY_MS = 10_000;

  await t.test('an officer access token', async (t) => {
    const [pair] = pairs;
    if (!pair) return t.fail('no token pair from the sign-in subtest');
    t.equal((await request(B.url, 'GET', '/api/auth/me', { token: pair.access_token })).status, 200, 'B accepts it (and keeps it verified)');
    const revoked = await request(A.url, 'POST', '/api/auth/revoke', { token: pair.access_token, body: { refresh_token: pair.refresh_token } });
    t.same(revoked, { status: 200, body: { refresh_token_deleted: true, access_token_revoked: true } });
    t.match(await request(A.url, 'GET', '/api/auth/me', { token: pair.access_token }), { status: 401, body: { reason: 'token_revoked' } }, 'A refuses it at once');
    t.ok(await eventually(async () => (await request(B.url, 'GET', '/api/auth/me', { token: pair.access_token })).status === 401, PROMPTLY_MS), 'B refuses it too');
    t.match(await request(B.url, 'GET', '/api/auth/me', { token: pair.access_token }), { status: 401, body: { reason: 'token_revoked' } });
    t.match(await request(B.url, 'POST', '/api/auth/refresh', { body: { refresh_token: pair.refresh_token } }), { status: 401, body: { reason: 'invalid_refresh_token' } }, 'its refresh token is gone for B');
  });

  await t.test('a machine token', async (t) => {
    const officerToken = pairs[1]?.access_token;
    if (!officerToken) return t.fail('no token pair from the sign-in subtest');
    const created = await request<{ token: string; record: { id: number } }>(A.url, 'POST', '/api/organizations/acm/tokens', {
      token: officerToken, body: { name: 'agent', kind: 'agent', scopes: ['org:read'] },
    });
    t.equal(created.status, 201);
    const { token, record } = created.body;
    t.match(await request(B.url, 'GET', '/api/auth/machine/whoami', { token }), { status: 200, body: { name: 'agent' } }, 'B accepts it (and caches it)');
    t.same(await request(A.url, 'DELETE', `/api/organizations/acm/tokens/${record.id}`, { token: officerToken }), { status: 200, body: { revoked: true } });
    t.match(await request(A.url, 'GET', '/api/auth/machine/whoami', { token }), { status: 401, body: { reason: 'token_revoked' } }, 'A refuses it at once');
    t.ok(await eventually(async () => (await request(B.url, 'GET', '/api/auth/machine/whoami', { token })).status === 401, PROMPTLY_MS), 'B refuses it too');
    t.match(await request(B.url, 'GET', '/api/auth/machine/whoami', { token }), { status: 401, body: { reason: 'token_revoked' } });
  });
});

t.test('limits stay exact across the two APIs', async (t) => {
  const officerToken = pairs[2]?.access_token;
  if (!officerToken) return t.fail('no token pair from the sign-in subtest');
  // Set through A before either process has read the org's limits, so each reads the overrides afresh.
  const set = await request(A.url, 'PUT', '/api/superadmin/limits/acm', { token: officerToken, body: { 'mcp.calls_per_minute': 8, 'scale.notes': 5 } });
  t.equal(set.status, 200, 'the superadmin sets the org\'s overrides', { body: set.body });

  await t.test('N + k tool calls racing over both APIs: exactly N pass the per-minute limit', async (t) => {
    const created = await request<{ token: string }>(B.url, 'POST', '/api/organizations/acm/tokens', {
      token: officerToken, body: { name: 'busy agent', kind: 'agent', scopes: ['org:read'] },
    });
    t.equal(created.status, 201);
    const call = (node: QuadNode) => request(node.url, 'POST', '/api/tools/call', { token: created.body.token, body: { name: 'org.info', arguments: {} } });
    const used = async () => (await rows<{ count: number }>("select count::int from usage_counters where key = 'mcp.calls_per_minute'"))[0]?.count;
    await roomInMinute(20_000); // every call below counts in one minute's window

    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(api(i))));
    t.equal(answers.filter((a) => a.status === 200).length, 8, 'exactly the limit pass', { answers: reasons(answers) });
    t.equal(answers.filter((a) => a.status === 429 && a.body.reason === 'rate_limited').length, 12, 'the rest are 429 rate_limited');
    t.equal(await used(), 8, 'refused calls are not counted');

    // Raised through A, the limit applies on B at once: B heard of it, though it may keep an org's limits for 30 s.
    const raised = await request(A.url, 'PUT', '/api/superadmin/limits/acm', { token: officerToken, body: { 'mcp.calls_per_minute': 10 } });
    t.equal(raised.status, 200);
    t.ok(await eventually(async () => (await call(B)).status === 200, 10_000), 'B lets a ninth call through');
    const more = await Promise.all(Array.from({ length: 4 }, (_, i) => call(api(i))));
    t.equal(more.filter((a) => a.status === 200).length, 1, 'then exactly one more passes over both APIs', { answers: reasons(more) });
    t.equal(await used(), 10);
  });

  await t.test('creates racing over both APIs never pass the count limit', async (t) => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => request(api(i).url, 'POST', '/api/scale/acm/notes', { body: { label: `note ${i}` } })));
    t.equal(answers.filter((a) => a.status === 201).length, 5, 'exactly the limit are created', { answers: reasons(answers) });
    t.equal(answers.filter((a) => a.status === 409 && a.body.reason === 'limit_reached').length, 7, 'the rest are 409 limit_reached');
    t.same(await rows('select count(*)::int as n from scale_notes'), [{ n: 5 }], 'the refused creates wrote nothing');
  });
});

t.test('a one-at-a-time job started through both APIs at once runs once, never in two workers at a time', async (t) => {
  const startAll = () => Promise.all(Array.from({ length: 6 }, (_, i) => request<{ run_id: number; reason?: string }>(api(i).url, 'POST', '/api/scale/acm/runs')));
  const refusedAll = (answers: Answer[]) => answers.every((a) => a.status === 409 && a.body.reason === 'job_running');
  const accepted: number[] = [];
  for (let round = 0; round < 3; round++) {
    // The slot is free: of six starts at once, one takes it.
    const answers = await startAll();
    const started = answers.filter((a) => a.status === 202);
    t.equal(started.length, 1, `round ${round}: one start of six is accepted`, { answers: reasons(answers) });
    t.ok(refusedAll(answers.filter((a) => a.status !== 202)), 'the others are 409 job_running');
    const runId = started[0]?.body.run_id;
    if (runId === undefined) return;
    accepted.push(runId);
    // The run holds (until released) in a worker: every start meanwhile is refused.
    const [span] = await waitFor(() => rows<{ id: number }>('select id from scale_job_spans where finished_at is null'), 30_000);
    if (!span) return t.fail(`run ${runId} never started`);
    const meanwhile = await startAll();
    t.ok(refusedAll(meanwhile), 'starts while it runs are all 409 job_running', { answers: reasons(meanwhile) });
    await sql.query('update scale_job_spans set released = true where id = $1', [span.id]);
    const ended = await eventually(async () => (await rows("select 1 from job_runs where id = $1 and status in ('succeeded', 'failed')", [runId])).length > 0, 30_000);
    t.ok(ended, `run ${runId} ended once released`);
  }
  const runs = await rows<{ id: number; status: string }>("select id, status from job_runs where name = 'scale.held' order by id");
  t.same(runs, accepted.map((id) => ({ id, status: 'succeeded' })), 'every accepted start ran, and nothing else');
  const spans = await rows<{ pid: number; started_at: Date; finished_at: Date | null }>('select pid, started_at, finished_at from scale_job_spans order by started_at');
  t.equal(spans.length, accepted.length, 'each run ran once');
  t.ok(spans.every((s) => workers.some((w) => w.pid === s.pid)), 'in the worker processes', { pids: spans.map((s) => s.pid) });
  for (let i = 1; i < spans.length; i++) {
    t.ok(spans[i - 1]!.finished_at! <= spans[i]!.started_at, `run ${i + 1} started after run ${i} finished`, { spans });
  }
});

t.test('a rolling restart of one API loses no request that a client retries on the other', async (t) => {
  // Requests alternate over the API processes; a request refused by one (its connection refused or reset, or 503
  // while it closes) is sent again to the other. The replacement of A takes A's place in the list.
  const nodes: QuadNode[] = [A, B];
  let retries = 0;
  async function send(i: number, method: string, path: string, body?: unknown): Promise<Answer> {
    for (let attempt = 0; attempt < 40; attempt++) {
      if (attempt >= 2) await sleep(100); // both refused: wait a moment
      try {
        const answer = await request(nodes[(i + attempt) % 2]!.url, method, path, { body });
        if (answer.status !== 503) return answer;
      } catch {
        // refused or reset: the process is stopping or gone
      }
      retries++;
    }
    throw new Error(`${method} ${path}: no API answered`);
  }

  let streaming = true;
  const results: { label: string; write: Answer; read: Answer }[] = [];
  const lane = async (n: number) => {
    for (let i = 0; streaming; i++) {
      const label = `stream ${n}.${i}`;
      const write = await send(i, 'POST', '/api/scale/acm/writes', { label });
      // Read it back through the other process: what one wrote, the other sees.
      const read = await send(i + 1, 'GET', `/api/scale/acm/writes/${encodeURIComponent(label)}`);
      results.push({ label, write, read });
      await sleep(20);
    }
  };
  // Settled, not raced: a lane that fails is reported below, never as an unhandled rejection.
  const lanes = Promise.allSettled([0, 1, 2].map(lane));

  // A request in flight on A when it is told to stop still finishes: it holds until A is shutting down.
  const inFlight = request<{ id: number; pid: number }>(A.url, 'POST', '/api/scale/acm/writes', { body: { label: 'in flight', hold: true } })
    .catch((err: Error) => ({ status: 0, body: { error: String(err.cause ?? err) } }));
  const [held] = await waitFor(() => rows<{ id: number }>("select id from scale_writes where label = 'in flight'"), 30_000);
  t.ok(held, 'the held write reached A');
  const stopped = stopNode(A, 'SIGTERM');
  t.ok(await eventually(async () => A.process.output().includes('"msg":"shutting down"'), 30_000), 'A is shutting down');
  await sql.query("update scale_writes set released = true where label = 'in flight'");
  t.same(await inFlight, { status: 201, body: { id: held?.id, pid: A.pid } }, 'A answers the write in flight');
  t.same(await stopped, { code: 0, signal: null }, 'then A stops cleanly', { output: A.process.output().slice(-3000) });

  const replacement = await startNode(root, 'api', env);
  nodes[0] = replacement;
  const served = await eventually(async () => (await rows('select 1 from scale_writes where pid = $1 limit 10', [replacement.pid])).length >= 10, 60_000);
  t.ok(served, 'the replacement of A serves the stream');
  streaming = false;
  t.same((await lanes).filter((lane) => lane.status === 'rejected'), [], 'no lane gave up');
  apis[0] = replacement;

  t.ok(results.length >= 20, `the stream sent ${results.length} writes and reads`);
  t.ok(retries > 0, `some requests met the stopped API and were sent again (${retries})`);
  t.same(results.filter((r) => r.write.status !== 201 || r.read.status !== 200 || r.read.body.count !== 1 || !r.read.body.done), [], 'every write succeeded once and the other process read it');
  const written = await rows<{ label: string; n: number; done: boolean }>(
    "select label, count(*)::int as n, bool_and(done) as done from scale_writes where label like 'stream %' group by label",
  );
  t.equal(written.length, results.length, 'every write is in the database');
  t.same(written.filter((w) => w.n !== 1 || !w.done), [], 'each exactly once, and finished');
  t.same(await rows("select done from scale_writes where label = 'in flight'"), [{ done: true }], 'the write in flight finished its work');
});

const ticksRunTwice = () => rows("select date_trunc('minute', ran_at) as minute, count(*)::int as n from scale_cron_ticks group by 1 having count(*) > 1");

t.test('a cron job due every minute runs once per tick with two workers', async (t) => {
  // The first minute boundary after both workers were up: each worker's scheduler fires on it, one gets the tick.
  const [{ tick }] = await rows<{ tick: Date }>("select date_trunc('minute', $1::timestamptz) + interval '1 minute' as tick", [workersUp]);
  const ran = await eventually(async () => (await rows('select 1 from scale_cron_ticks where ran_at >= $1', [tick])).length > 0, 80_000);
  t.ok(ran, `the tick of ${tick.toISOString()} ran`);
  t.ok(workers.every((w) => w.process.child.exitCode === null), 'both workers were up');
  // A second run would be scheduled at the same moment by the other worker's scheduler: give it a moment to show.
  await eventually(async () => (await rows("select 1 where now() > $1::timestamptz + interval '3 seconds'", [tick])).length > 0, 15_000);
  t.same(await rows("select count(*)::int as n from graphile_worker.jobs where task_identifier = 'scale.tick'"), [{ n: 0 }], 'no run of it is waiting');
  t.same(await rows("select count(*)::int as n from scale_cron_ticks where ran_at >= $1 and ran_at < $1::timestamptz + interval '1 minute'", [tick]), [{ n: 1 }], 'it ran once');
  t.same(await rows("select count(*)::int as n from job_runs where name = 'scale.tick' and started_at >= $1 and started_at < $1::timestamptz + interval '1 minute'", [tick]), [{ n: 1 }], 'one run is recorded');
  t.same(await ticksRunTwice(), [], 'no minute ran twice');
});

t.test('a singleton daemon runs in one worker; killed, the other takes over', async (t) => {
  const beats = () => rows<{ pid: number; beat_at: Date; stopped_at: Date | null }>('select pid, beat_at, stopped_at from scale_daemon_beats order by started_at');
  const before = await beats();
  // The follower has tried to take the lead every 500 ms since it started: it never did.
  t.equal(before.length, 1, 'one worker ever started it', { beats: before });
  const leader = workers.find((w) => w.pid === before[0]?.pid);
  const follower = workers.find((w) => w !== leader);
  if (!leader || !follower) return t.fail('the daemon does not run in a worker', { beats: before });
  t.ok(await eventually(async () => (await beats())[0]!.beat_at > before[0]!.beat_at, 10_000), 'it is running: its beat moves');

  t.same(await stopNode(leader, 'SIGKILL'), { code: null, signal: 'SIGKILL' }, 'kill -9 the worker that runs it');
  const takenOver = await eventually(async () => {
    const [row] = await rows<{ fresh: boolean }>("select beat_at > now() - interval '1 second' and stopped_at is null as fresh from scale_daemon_beats where pid = $1", [follower.pid]);
    return row?.fresh === true;
  }, 20_000);
  t.ok(takenOver, 'the other worker runs it now');
  const after = await beats();
  t.same(after.map((b) => b.pid), [leader.pid, follower.pid], 'and no third start');
  t.ok((await eventually(async () => (await beats())[1]!.beat_at > after[1]!.beat_at, 10_000)), 'its beat moves');
});

t.test('the remaining processes stop cleanly, and no process logged an error', async (t) => {
  t.same(await ticksRunTwice(), [], 'no minute\'s cron tick ran twice, late ones included');
  for (const node of [...apis, ...workers].filter((n) => n.process.child.exitCode === null && n.process.child.signalCode === null)) {
    t.same(await stopNode(node), { code: 0, signal: null }, `${node.role} ${node.pid} exits with 0 on SIGTERM`, { output: node.process.output().slice(-3000) });
  }
  for (const node of [A, ...apis, ...workers]) {
    // pino's levels: 50 error, 60 fatal (a 500 answer is logged at error).
    const errors = node.process.lines().filter((line) => /^\{"level":[56]0,/.test(line));
    t.same(errors, [], `${node.role} ${node.pid} logged no error`);
  }
});
