// Pod sessions and the job podhost.schedule against the fake provider: the session rules (zoned times, stop after
// start, 24 hours or less), list, create and delete with their audit, who is refused, the cap per pod, and the
// schedule's rules with the job's clock set through its payload: a pod starts 10 minutes before a session (not 11),
// stops when a session ended and no other is open (also when it was running at the start), is untouched without
// sessions, stops after its session was deleted, stays up for overlapping sessions; one failing pod does not stop
// the others, and two runs (one after the other or at once) act once.
import t, { type Test } from 'tap';
import { API_KEY, startPodsWorld } from './world.js';

const w = await startPodsWorld(t);
const { quad, org, fake, asOfficer: officer } = w;

const MIN = 60_000;
const HOUR = 60 * MIN;
// Sessions are set in the real clock's future (a session that already ended is refused); the job runs at times
// around them, given in its payload.
const BASE = Math.ceil(Date.now() / HOUR) * HOUR + 24 * HOUR;
const at = (offset: number) => new Date(BASE + offset).toISOString();

const addSession = (podId: string, start: number, stop: number, title = 'class') =>
  officer('POST', `/pods/${podId}/sessions`, { title, start_at: at(start), stop_at: at(stop) });
const sessions = async (podId: string) => (await officer('GET', `/pods/${podId}/sessions`)).json().sessions as { id: number; title: string; pod_started_by_schedule: boolean }[];

/** A pod of the fake provider, stopped unless `running`; terminated (with its sessions) when the test ends. */
async function pod(t: Test, name: string, running = false): Promise<string> {
  const made = await officer('POST', '/pods', { gpu_type_id: 'NVIDIA RTX A4000', name });
  t.equal(made.statusCode, 201, `pod ${name} made`);
  const id = made.json().pod_id as string;
  if (!running) fake.setStatus(id, 'EXITED');
  t.teardown(() => officer('POST', `/pods/${id}/action`, { action: 'terminate' }));
  return id;
}
const status = (podId: string) => fake.pods.find((p) => p.id === podId)?.status;
const actions = (podId: string) => fake.requests
  .filter((r) => r.method === 'POST' && r.path === `/v2/pods/${podId}/action`).map((r) => (r.body as { action: string }).action);
const requestsFor = (podId: string) => fake.requests.filter((r) => r.path.startsWith(`/v2/pods/${podId}`)).length;

/** Runs podhost.schedule as the worker does, at BASE + offset, and waits for it. */
async function runAt(t: Test, offset: number) {
  const { runId } = await quad.services.startJob(quad.orm.em.fork(), 'podhost.schedule', { now: at(offset) });
  const run = await quad.waitForRun(runId);
  t.equal(run.status, 'succeeded', `the run at ${offset / MIN} min succeeded${run.error ? `: ${run.error}` : ''}`);
}
const scheduleEvents = (podId: string) => w.sql<{ kind: string; data: { by: string; session_ids: number[] } }>(
  "select kind, data from notifications where kind like 'podhost.pod_%' and data->>'pod_id' = ? order by id", [podId]);

t.test('the routes', async (t) => {
  t.same(quad.routes('/api/compute/:org/pods/:pod_id/sessions'), [
    'DELETE /api/compute/:org/pods/:pod_id/sessions/:id', 'GET /api/compute/:org/pods/:pod_id/sessions', 'POST /api/compute/:org/pods/:pod_id/sessions',
  ]);
});

t.test('a session\'s rules: zoned ISO 8601 times, stop after start, 24 hours or less', async (t) => {
  const p = await pod(t, 'rules');
  const post = (body: Record<string, unknown>) => officer('POST', `/pods/${p}/sessions`, body);
  const day = at(HOUR).slice(0, 10);
  const cases: [Record<string, unknown>, number, string, RegExp][] = [
    [{ title: 'x', start_at: `${day}T10:00:00`, stop_at: `${day}T11:00:00Z` }, 400, 'time_zone_missing', /start_at: ".*T10:00:00" has no time zone; add Z/],
    [{ title: 'x', start_at: at(HOUR), stop_at: `${day}T23:00` }, 400, 'time_zone_missing', /stop_at: .* has no time zone/],
    [{ title: 'x', start_at: 'tomorrow at ten', stop_at: at(2 * HOUR) }, 400, 'invalid_time', /start_at: "tomorrow at ten" is not an ISO 8601 date and time/],
    [{ title: 'x', start_at: '2031-02-30T10:00:00Z', stop_at: '2031-03-01T10:00:00Z' }, 400, 'invalid_time', /"2031-02-30T10:00:00Z" is not a real date and time/],
    [{ title: 'x', start_at: '2031-01-01T24:30:00Z', stop_at: '2031-01-02T10:00:00Z' }, 400, 'invalid_time', /not a real date and time/],
    [{ title: 'x', start_at: '2031-01-01T10:00:00+25:00', stop_at: '2031-01-02T10:00:00Z' }, 400, 'invalid_time', /not a real date and time/],
    [{ title: 'x', start_at: at(HOUR), stop_at: at(HOUR) }, 400, 'stop_not_after_start', /stop_at must be after start_at/],
    [{ title: 'x', start_at: at(2 * HOUR), stop_at: at(HOUR) }, 400, 'stop_not_after_start', /stop_at must be after start_at/],
    [{ title: 'x', start_at: at(HOUR), stop_at: at(25 * HOUR + 1000) }, 400, 'session_too_long', /24 hours or less/],
    [{ title: 'x', start_at: new Date(Date.now() - 2 * HOUR).toISOString(), stop_at: new Date(Date.now() - HOUR).toISOString() }, 400, 'session_over', /already have ended/],
    [{ title: '   ', start_at: at(HOUR), stop_at: at(2 * HOUR) }, 400, 'invalid_session', /needs a title/],
  ];
  for (const [body, code, reason, error] of cases) {
    const res = await post(body);
    t.equal(res.statusCode, code, JSON.stringify(body));
    t.match(res.json(), { reason, error });
  }
  for (const body of [{ start_at: at(HOUR), stop_at: at(2 * HOUR) }, { title: 'x', start_at: at(HOUR), stop_at: at(2 * HOUR), extra: 1 }, { title: 'x', start_at: 5, stop_at: at(HOUR) }]) {
    t.equal((await post(body)).statusCode, 400, `schema: ${JSON.stringify(body)}`);
  }
  t.same(await sessions(p), [], 'nothing refused was kept');

  const day24 = await post({ title: 'a whole day', start_at: at(HOUR), stop_at: at(25 * HOUR) });
  t.equal(day24.statusCode, 201, 'exactly 24 hours is allowed');
  const offset = await post({ title: 'offset', start_at: `${day}T12:00:00+02:00`, stop_at: `${day}T13:30:00.5-0130` });
  t.equal(offset.statusCode, 201, offset.body);
  t.match(offset.json(), { start_at: `${day}T10:00:00.000Z`, stop_at: `${day}T15:00:00.500Z` }, 'offsets are honoured, answers are UTC');

  const missing = await officer('POST', '/pods/nopod/sessions', { title: 'x', start_at: at(HOUR), stop_at: at(2 * HOUR) });
  t.match([missing.statusCode, missing.json().reason], [404, 'pod_not_found'], 'unknown pod');
  t.equal((await officer('GET', '/pods/nopod/sessions')).statusCode, 404);
  t.equal((await officer('DELETE', '/pods/nopod/sessions/1')).statusCode, 404);
  const unknown = await officer('DELETE', `/pods/${p}/sessions/999999`);
  t.match([unknown.statusCode, unknown.json().reason], [404, 'session_not_found'], 'unknown session');
  t.equal((await officer('DELETE', `/pods/${p}/sessions/abc`)).statusCode, 400, 'a session id is a number');
});

t.test('list, create, delete, audit', async (t) => {
  const p = await pod(t, 'listing');
  const other = await pod(t, 'other');
  const late = (await addSession(p, 5 * HOUR, 6 * HOUR, 'late')).json();
  const early = await addSession(p, HOUR, 2 * HOUR, 'early');
  t.equal(early.statusCode, 201);
  t.match(early.json(), { pod_id: p, title: 'early', start_at: at(HOUR), stop_at: at(2 * HOUR), pod_started_by_schedule: false, created_by: `officer:${w.officer.id}` });
  t.same((await sessions(p)).map((s) => s.title), ['early', 'late'], 'by start');
  t.same(await sessions(other), [], 'each pod its own');

  t.equal((await officer('DELETE', `/pods/${other}/sessions/${late.id}`)).statusCode, 404, 'not through another pod');
  const gone = await officer('DELETE', `/pods/${p}/sessions/${late.id}`);
  t.same(gone.json(), { id: late.id, deleted: true, pod_stop_pending: false });
  t.same((await sessions(p)).map((s) => s.title), ['early']);
  t.equal((await officer('DELETE', `/pods/${p}/sessions/${late.id}`)).statusCode, 404, 'deleted once');

  const audit = await w.sql<{ action: string; details: Record<string, unknown> }>(
    "select action, details from audit_log where action like 'podhost.session_%' and details->>'pod_id' = ? order by id", [p]);
  t.match(audit, [
    { action: 'podhost.session_created', details: { session_id: late.id } },
    { action: 'podhost.session_created', details: { session_id: early.json().id } },
    { action: 'podhost.session_deleted', details: { session_id: late.id, pod_stop_pending: false } },
  ]);

  await officer('POST', `/pods/${p}/action`, { action: 'terminate' });
  t.equal((await w.sql('select count(*)::int as n from compute_sessions where pod_id = ?', [p]))[0].n, 0, 'a terminated pod\'s sessions go with it');
});

t.test('officers of the org only', async (t) => {
  const p = await pod(t, 'guarded');
  const s = (await addSession(p, HOUR, 2 * HOUR)).json();
  const stranger = await w.strangerOfficerToken();
  const calls = [['GET', `/pods/${p}/sessions`], ['POST', `/pods/${p}/sessions`], ['DELETE', `/pods/${p}/sessions/${s.id}`]] as const;
  for (const [method, url] of calls) {
    const body = method === 'POST' ? { title: 'x', start_at: at(HOUR), stop_at: at(2 * HOUR) } : undefined;
    t.equal((await w.call({ method, url: `/api/compute/${org.prefix}${url}`, token: stranger, body })).statusCode, 403, `another org's officer: ${method}`);
    t.equal((await w.call({ method, url: `/api/compute/${org.prefix}${url}`, cookie: w.memberCookie, body })).statusCode, 401, `a member: ${method}`);
  }
  t.same((await sessions(p)).map((x) => x.id), [s.id], 'nothing changed');
});

t.test(`a pod keeps at most 200 sessions; the job prunes those ended over 30 days ago`, async (t) => {
  const p = await pod(t, 'busy');
  // 199 past sessions, already handled by the schedule (a route would refuse them: they ended).
  await w.sql(`insert into compute_sessions (organization_id, pod_id, title, start_at, stop_at, start_handled_at, end_handled_at)
    select ?, ?, 'old ' || n, ?::timestamptz - make_interval(days => n), ?::timestamptz - make_interval(days => n) + interval '1 hour', now(), now()
    from generate_series(1, 199) n`, [org.id, p, at(0), at(0)]);
  t.equal((await addSession(p, HOUR, 2 * HOUR, 'the 200th')).statusCode, 201);
  const over = await addSession(p, 3 * HOUR, 4 * HOUR, 'one too many');
  t.equal(over.statusCode, 409);
  t.match(over.json(), { reason: 'too_many_sessions', error: /at most 200 sessions/ });
  await runAt(t, -2 * HOUR);
  const left = await w.sql<{ n: number }>('select count(*)::int as n from compute_sessions where pod_id = ?', [p]);
  t.equal(left[0].n, 31, 'the 30 past sessions that ended within 30 days of the run, and the new one');
  t.equal((await addSession(p, 3 * HOUR, 4 * HOUR, 'room again')).statusCode, 201);
  t.same(actions(p), [], 'the pod was not touched');
});

t.test('the schedule starts a pod 10 minutes before its session (not 11) and stops it after the end', async (t) => {
  const p = await pod(t, 'lecture');
  await addSession(p, HOUR, 2 * HOUR, 'lecture');
  await runAt(t, HOUR - 11 * MIN);
  t.equal(status(p), 'EXITED', '11 minutes before: not yet');
  await runAt(t, HOUR - 10 * MIN);
  t.equal(status(p), 'RUNNING', '10 minutes before: started');
  t.match(await sessions(p), [{ title: 'lecture', pod_started_by_schedule: true }]);
  await runAt(t, 2 * HOUR - MIN);
  t.equal(status(p), 'RUNNING', 'during the session: running');
  await runAt(t, 2 * HOUR);
  t.equal(status(p), 'EXITED', 'ended, no other session open: stopped');
  await runAt(t, 2 * HOUR);
  await runAt(t, 3 * HOUR);
  t.same(actions(p), ['start', 'stop'], 'each transition once, however often the job runs');
  const events = await scheduleEvents(p);
  t.match(events.filter((e) => e.kind !== 'podhost.pod_created'), [
    { kind: 'podhost.pod_started', data: { by: 'schedule', session_ids: [Number] } },
    { kind: 'podhost.pod_stopped', data: { by: 'schedule' } },
  ]);
});

t.test('a pod already running at the session start is stopped at its end', async (t) => {
  const p = await pod(t, 'always-on', true);
  await addSession(p, HOUR, 2 * HOUR);
  await runAt(t, HOUR - 5 * MIN);
  t.same(actions(p), [], 'running already: not started again');
  t.match(await sessions(p), [{ pod_started_by_schedule: false }]);
  await runAt(t, 2 * HOUR + MIN);
  t.equal(status(p), 'EXITED');
  t.same(actions(p), ['stop']);
});

t.test('a pod without sessions is untouched', async (t) => {
  const idle = await pod(t, 'idle', true);
  const busy = await pod(t, 'busy');
  await addSession(busy, HOUR, 2 * HOUR);
  const before = requestsFor(idle);
  await runAt(t, HOUR);
  await runAt(t, 2 * HOUR);
  t.same(actions(busy), ['start', 'stop'], 'the job did work');
  t.equal(requestsFor(idle), before, 'the provider was not even asked about the idle pod');
  t.equal(status(idle), 'RUNNING');
});

t.test('a deleted session: the pod the schedule started for it is stopped at the next run, unless another session is open', async (t) => {
  const alone = await pod(t, 'alone');
  await addSession(alone, HOUR, 2 * HOUR);
  await runAt(t, HOUR - 5 * MIN);
  t.equal(status(alone), 'RUNNING');
  const [s] = await sessions(alone);
  t.same((await officer('DELETE', `/pods/${alone}/sessions/${s.id}`)).json(), { id: s.id, deleted: true, pod_stop_pending: true });
  t.same(await sessions(alone), [], 'gone from the list at once');
  await runAt(t, HOUR);
  t.equal(status(alone), 'EXITED', 'stopped at the next run');
  t.equal((await w.sql('select count(*)::int as n from compute_sessions where pod_id = ?', [alone]))[0].n, 0, 'and the row is gone');
  t.match((await scheduleEvents(alone)).at(-1), { kind: 'podhost.pod_stopped', data: { by: 'schedule' } });

  const shared = await pod(t, 'shared');
  await addSession(shared, HOUR, 2 * HOUR, 'a');
  await addSession(shared, HOUR, 3 * HOUR, 'b');
  await runAt(t, HOUR - 5 * MIN);
  const [a] = await sessions(shared);
  t.equal((await officer('DELETE', `/pods/${shared}/sessions/${a.id}`)).json().pod_stop_pending, true);
  await runAt(t, HOUR);
  t.equal(status(shared), 'RUNNING', 'b is still open');
  await runAt(t, 3 * HOUR);
  t.equal(status(shared), 'EXITED', 'stopped when b ended');
  t.same(actions(shared), ['start', 'stop']);

  const manual = await pod(t, 'manual', true);
  await addSession(manual, HOUR, 2 * HOUR);
  await runAt(t, HOUR - 5 * MIN);
  const [m] = await sessions(manual);
  t.equal((await officer('DELETE', `/pods/${manual}/sessions/${m.id}`)).json().pod_stop_pending, false, 'the schedule did not start this one');
  await runAt(t, HOUR);
  t.equal(status(manual), 'RUNNING', 'so it is left running');
});

t.test('overlapping and back-to-back sessions keep the pod running', async (t) => {
  const p = await pod(t, 'workshop');
  await addSession(p, HOUR, 2 * HOUR, 'morning');
  await addSession(p, HOUR + 30 * MIN, 3 * HOUR, 'overlap');
  await addSession(p, 3 * HOUR + 5 * MIN, 4 * HOUR, 'right after');
  await runAt(t, HOUR - 10 * MIN);
  await runAt(t, 2 * HOUR);
  t.equal(status(p), 'RUNNING', 'morning ended, overlap still open');
  await runAt(t, 3 * HOUR);
  t.equal(status(p), 'RUNNING', 'overlap ended, the next one starts within 10 minutes');
  await runAt(t, 4 * HOUR);
  t.equal(status(p), 'EXITED', 'the last one ended');
  t.same(actions(p), ['start', 'stop'], 'one start, one stop');
});

t.test('a failing pod does not stop the others; its org gets a problem until it works', async (t) => {
  const a = await pod(t, 'flaky-a');
  const b = await pod(t, 'flaky-b');
  await addSession(a, HOUR, 2 * HOUR);
  await addSession(b, HOUR, 2 * HOUR);
  fake.failNext(500); // the run's first provider call, for whichever pod comes first
  await runAt(t, HOUR - 5 * MIN);
  const states = [status(a), status(b)];
  t.same([...states].sort(), ['EXITED', 'RUNNING'], 'one failed, the other was started');
  const failed = states[0] === 'EXITED' ? a : b;
  const problems = () => w.sql<{ title: string; message: string; status: string }>(
    "select title, message, status from notifications where category = 'problem' and problem_key = ?", [`podhost.schedule:${failed}`]);
  t.match(await problems(), [{ status: 'open', title: /could not be started/, message: /provider.*tries again at its next run/i }]);
  t.notMatch(JSON.stringify(await problems()), new RegExp(API_KEY), 'no key in a problem');
  await runAt(t, HOUR - MIN);
  t.equal(status(failed), 'RUNNING', 'the next run starts it');
  t.same(await problems(), [], 'and the problem is gone');

  fake.remove(a);
  await runAt(t, 2 * HOUR);
  t.equal(status(b), 'EXITED', 'b stopped though the provider lost a');
  t.match(await w.sql("select message from notifications where category = 'problem' and problem_key = ?", [`podhost.schedule:${a}`]),
    [{ message: /no longer has this pod/ }]);
});

t.test('two runs at once act once', async (t) => {
  const p = await pod(t, 'raced');
  await addSession(p, HOUR, 2 * HOUR);
  await Promise.all([runAt(t, HOUR - 5 * MIN), runAt(t, HOUR - 5 * MIN)]);
  await Promise.all([runAt(t, 2 * HOUR), runAt(t, 2 * HOUR)]);
  t.same(actions(p), ['start', 'stop']);
  t.same((await scheduleEvents(p)).map((e) => e.kind), ['podhost.pod_created', 'podhost.pod_started', 'podhost.pod_stopped']);
});

t.test('skipped while the module is off or the org has no provider key', async (t) => {
  const p = await pod(t, 'switched');
  await addSession(p, HOUR, 2 * HOUR);
  await quad.updateOrg(org.id, { modules: { podhost: false } });
  await runAt(t, HOUR - 5 * MIN);
  await quad.updateOrg(org.id, { modules: { podhost: true } });
  const em = quad.emFor(org.id);
  await quad.services.secrets.delete(em, org.id, 'hostprov_api_key');
  await runAt(t, HOUR - 4 * MIN);
  t.equal(status(p), 'EXITED', 'not started');
  await quad.services.secrets.set(em, org.id, 'hostprov_api_key', API_KEY);
  await runAt(t, HOUR - 3 * MIN);
  t.equal(status(p), 'RUNNING', 'started once both are back');
});

t.test('the job\'s payload: only a date-time', async (t) => {
  await t.rejects(quad.services.startJob(quad.orm.em.fork(), 'podhost.schedule', { now: 'soon' }), { name: 'HttpError', statusCode: 400, reason: 'invalid_job_payload' });
  await t.rejects(quad.services.startJob(quad.orm.em.fork(), 'podhost.schedule', { now: at(0), other: 1 }), { name: 'HttpError', statusCode: 400 });
});
