// The checks against a monitored site on loopback (real HTTP through the safe fetcher): each failure reason (status,
// keyword, timeout, a refused private address, a redirect to one), down after N failures in a row with its event and
// problem, recovery with its event and the problem cleared, the schedule (due, paused, module off, not twice from
// two runs at once, batches), the day rollup's math, the 24 h and 30 d uptime, and uptime.prune.
import t from 'tap';
import { orgDb } from '@quad/core';
import { startUptimeWorld } from './world.js';
import { CHECK_DUE_JOB, PRUNE_JOB, BATCH } from '../jobs.js';
import { recordCheck } from '../record.js';
import type { ProbeResult } from '../probe.js';

const w = await startUptimeWorld(t);
const { quad, site, call } = w;
const MINUTE = 60_000;
const T0 = Date.now();
const at = (minutes: number) => new Date(T0 + minutes * MINUTE).toISOString();
const checksOf = (id: number) => w.sql<{ n: number }>('select count(*)::int as n from uptime_checks where monitor_id = ?', [id]).then((r) => r[0]!.n);
const make = async (body: Record<string, unknown>) => {
  const res = await call('POST', '/monitors', body);
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json().id as number;
};
const checkNow = async (id: number) => (await call('POST', `/monitors/${id}/check`)).json();

t.test('failure reasons, each said without internal details', async (t) => {
  const id = await make({ name: 'Site', url: site.url('/'), keyword: 'operational', timeout_ms: 1000 });
  site.answer({ status: 200 });
  t.match(await checkNow(id), { ok: true, status: 200, reason: null });
  site.answer({ status: 200, body: 'maintenance' });
  t.match(await checkNow(id), { ok: false, status: 200, reason: 'keyword_missing', message: 'the keyword is not in the first 1 MB of the page' });
  site.answer({ status: 200, body: 'Operational' });
  t.match(await checkNow(id), { reason: 'keyword_missing' }, 'the keyword is case-sensitive');
  site.answer({ status: 503 });
  t.match(await checkNow(id), { ok: false, status: 503, reason: 'status_mismatch', message: 'answered 503, expected 200' });
  site.answer({ hang: true });
  const timedOut = await checkNow(id);
  t.match(timedOut, { ok: false, status: null, reason: 'timeout', message: /did not answer within 1 s/ });
  t.ok(timedOut.latency_ms >= 900, 'the time it waited');
  site.answer({ redirect: 'http://127.0.0.1:9/admin' });
  const redirected = await checkNow(id);
  t.match(redirected, { ok: false, reason: 'refused' }, 'a redirect to a loopback address is refused at that hop');
  site.answer({});

  const port = new URL(site.origin).port;
  const loopback = await make({ name: 'Loopback', url: `http://127.0.0.1:${port}/` });
  t.match(await checkNow(loopback), { ok: false, status: null, reason: 'refused', message: /loopback address: refused/ }, 'the same site on 127.0.0.1 is not allowed');
  const privateNet = await make({ name: 'Intranet', url: 'http://10.20.30.40/status' });
  t.match(await checkNow(privateNet), { ok: false, reason: 'refused', message: /private address: refused/ });
  const expects404 = await make({ name: 'Gone page', url: site.url('/old'), expected_status: 404 });
  site.answer({ status: 404 });
  t.match(await checkNow(expects404), { ok: true, status: 404 }, 'the expected status may be any status');
  site.answer({});
  for (const m of [id, loopback, privateNet, expects404]) t.equal((await call('DELETE', `/monitors/${m}`)).statusCode, 200);
});

t.test('the schedule: down after N failures in a row (event, problem), up again (event, cleared)', async (t) => {
  const id = await make({ name: 'Shop', url: site.url('/shop'), interval_seconds: 60, down_after: 3 });
  site.answer({ status: 502 });
  const view = async () => (await call('GET', `/monitors/${id}`)).json();

  await w.runJob(CHECK_DUE_JOB, { now: at(1) });
  t.match(await view(), { state: 'pending', consecutive_failures: 1, last_check: { ok: false, status: 502, reason: 'status_mismatch' } });
  await w.runJob(CHECK_DUE_JOB, { now: at(1.5) });
  t.equal(await checksOf(id), 1, 'not due again before its interval');
  await w.runJob(CHECK_DUE_JOB, { now: at(2) });
  t.match(await view(), { state: 'pending', consecutive_failures: 2 });
  t.same(await w.notifications(id), [], 'no event or problem before down_after failures');
  await w.runJob(CHECK_DUE_JOB, { now: at(3) });
  const down = await view();
  t.match(down, { state: 'down', consecutive_failures: 3, state_changed_at: at(3) });
  t.match(await w.notifications(id), [
    { category: 'event', kind: 'uptime.down', title: 'Shop is down' },
    { category: 'problem', kind: 'uptime.down', problem_key: `uptime.down:${id}`, title: 'Shop is down', status: 'open' },
  ]);
  await w.runJob(CHECK_DUE_JOB, { now: at(4) });
  t.equal((await w.notifications(id)).length, 2, 'still down: no second event');

  site.answer({});
  await w.runJob(CHECK_DUE_JOB, { now: at(5) });
  t.match(await view(), { state: 'up', consecutive_failures: 0, state_changed_at: at(5) });
  const after = await w.notifications(id);
  t.match(after.map((n) => n.kind), ['uptime.down', 'uptime.up'], 'the up event; the problem is gone');
  t.match(after[1], { category: 'event', title: 'Shop is up again' });
  t.equal(await checksOf(id), 5);

  // Down again, then deleted: its problem goes with it.
  site.answer({ status: 500 });
  await call('PUT', `/monitors/${id}`, { down_after: 1 });
  await w.runJob(CHECK_DUE_JOB, { now: at(6) });
  t.equal((await view()).state, 'down');
  t.equal((await w.notifications(id)).filter((n) => n.category === 'problem').length, 1);
  await call('DELETE', `/monitors/${id}`);
  t.same((await w.notifications(id)).filter((n) => n.category === 'problem'), [], 'deleting a down monitor clears its problem');
  site.answer({});
});

t.test('a new URL or a pause starts afresh and clears the problem', async (t) => {
  const id = await make({ name: 'Blog', url: site.url('/blog'), down_after: 1 });
  site.answer({ status: 500 });
  await checkNow(id);
  t.equal((await w.notifications(id)).filter((n) => n.category === 'problem').length, 1);
  t.match((await call('PUT', `/monitors/${id}`, { url: site.url('/blog/') })).json(), { state: 'pending', consecutive_failures: 0 });
  t.same((await w.notifications(id)).filter((n) => n.category === 'problem'), []);
  site.answer({});
  await call('DELETE', `/monitors/${id}`);
});

t.test('the schedule takes due monitors of orgs with uptime on, not paused, each once even from two runs at once', async (t) => {
  const before = site.requests.length;
  const ids: number[] = [];
  for (let i = 0; i < BATCH + 5; i++) ids.push(await w.insertMonitor(w.org.id, { name: `m${i}`, url: site.url(`/m${i}`), interval_seconds: 600 }));
  const paused = await w.insertMonitor(w.org.id, { name: 'paused', paused: true });
  const notYet = await w.insertMonitor(w.org.id, { name: 'later', next_check_at: at(60) });
  const off = await w.insertMonitor(w.beta.id, { name: 'beta (uptime off)' });
  const other = await w.insertMonitor(w.gamma.id, { name: 'gamma', url: site.url('/gamma') });
  await Promise.all([w.runJob(CHECK_DUE_JOB, { now: at(10) }), w.runJob(CHECK_DUE_JOB, { now: at(10) })]);
  const counts = await w.sql<{ monitor_id: number; n: number }>(
    'select monitor_id, count(*)::int as n from uptime_checks where monitor_id in (?) group by monitor_id', [[...ids, paused, notYet, off, other]]);
  const byId = new Map(counts.map((c) => [c.monitor_id, c.n]));
  t.same(ids.map((i) => byId.get(i) ?? 0), ids.map(() => 1), 'every due monitor checked exactly once');
  t.equal(byId.get(other), 1, 'another org with uptime on is checked too');
  for (const skipped of [paused, notYet, off]) t.notOk(byId.has(skipped), `monitor ${skipped} left alone`);
  t.equal(site.requests.length - before, ids.length + 1, 'one request each');
  const [next] = await w.sql<{ next: Date }>('select next_check_at as next from uptime_monitors where id = ?', [ids[0]]);
  t.equal(new Date(next!.next).toISOString(), at(20), 'moved an interval ahead');
  await w.sql('delete from uptime_monitors where organization_id = ? or organization_id = ?', [w.org.id, w.gamma.id]);
});

t.test('the day rollup: checks, up, uptime %, latency over answered checks; the days route and 24 h / 30 d', async (t) => {
  const id = await w.insertMonitor(w.org.id, { name: 'rollup', paused: true });
  const db = orgDb(quad.emFor(w.org.id));
  const target = { id, organization_id: w.org.id, url: site.url() };
  const result = (ok: boolean, status: number | null, latency: number): ProbeResult =>
    ({ ok, status, latency_ms: latency, reason: ok ? null : status === null ? 'timeout' : 'status_mismatch', message: ok ? null : 'failed' });
  const today = new Date(new Date().toISOString().slice(0, 10) + 'T00:00:00Z').getTime();
  const dayAt = (daysAgo: number, hour: number) => new Date(today - daysAgo * 86_400_000 + hour * 3_600_000);
  const day = (daysAgo: number) => dayAt(daysAgo, 0).toISOString().slice(0, 10);
  // Five days ago: two up (100 and 300 ms), one wrong status (50 ms); four days ago: one timeout (no answer).
  await recordCheck(db, quad.services, target, result(true, 200, 100), dayAt(5, 1));
  await recordCheck(db, quad.services, target, result(true, 200, 300), dayAt(5, 12));
  await recordCheck(db, quad.services, target, result(false, 500, 50), dayAt(5, 23));
  await recordCheck(db, quad.services, target, result(false, null, 10_000), dayAt(4, 12));
  const days = (await call('GET', `/monitors/${id}/days?days=6`)).json().days;
  t.same(days.slice(0, 3), [
    { day: day(5), checks: 3, up: 2, uptime_pct: 66.67, latency_ms: { min: 50, avg: 150, max: 300 } },
    { day: day(4), checks: 1, up: 0, uptime_pct: 0, latency_ms: null },
    { day: day(3), checks: 0, up: 0, uptime_pct: null, latency_ms: null },
  ]);
  t.equal(days.length, 6);
  t.equal(days[5].day, day(0), 'oldest first, up to today');
  const [stored] = await w.sql('select checks, up, answered, latency_sum::int as sum from uptime_days where monitor_id = ? and day = ?', [id, day(5)]);
  t.same(stored, { checks: 3, up: 2, answered: 3, sum: 450 }, 'one row per day, maintained as checks are written');

  // The last 24 hours count raw checks; 30 days count the rollup.
  const now = Date.now();
  await recordCheck(db, quad.services, target, result(true, 200, 80), new Date(now - 60 * MINUTE));
  await recordCheck(db, quad.services, target, result(false, 503, 20), new Date(now - 120 * MINUTE));
  const view = (await call('GET', `/monitors/${id}`)).json();
  t.equal(view.uptime_24h, 50);
  t.equal(view.uptime_30d, 50, '3 up of 6 checks in 30 days');
  t.equal((await call('GET', `/monitors/${id}/checks?limit=2`)).json().checks.map((c: { latency_ms: number }) => c.latency_ms).join(), '80,20', 'newest first');
});

t.test('uptime.prune: raw checks after 30 days, days after 400', async (t) => {
  const id = await w.insertMonitor(w.org.id, { name: 'old', paused: true });
  await w.sql(`insert into uptime_checks (organization_id, monitor_id, checked_at, ok, latency_ms)
               values (?, ?, now() - interval '31 days', true, 5), (?, ?, now() - interval '29 days', true, 5)`, [w.org.id, id, w.org.id, id]);
  await w.sql(`insert into uptime_days (organization_id, monitor_id, day, checks, up)
               values (?, ?, current_date - 401, 1, 1), (?, ?, current_date - 399, 1, 1)`, [w.org.id, id, w.org.id, id]);
  await w.runJob(PRUNE_JOB, { now: new Date().toISOString() });
  t.equal(await checksOf(id), 1, 'the 31-day-old check is gone, the 29-day-old one kept');
  const [days] = await w.sql<{ n: number }>('select count(*)::int as n from uptime_days where monitor_id = ?', [id]);
  t.equal(days!.n, 1);
});
