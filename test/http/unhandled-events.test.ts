// Unhandled errors are deduplicated: each cause is one problem that counts its repeats, and the event
// error.unhandled (which reaches outbound webhooks) is emitted only when that problem is new or reopens — so a
// flood of failing requests never pushes an org's other events out through the 200-event cap.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';
import { failing } from '../fixtures/failing-module.js';

t.test('a flood of unhandled errors is one problem and one event', async (t) => {
  const quad = await startTestApp(t, { plugins: [failing], role: 'api' });
  const org = await quad.createOrg({ prefix: 'acm', modules: { failing: true } });
  const sql = <T = Record<string, any>>(q: string, p: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, p) as Promise<T[]>;
  for (let i = 0; i < 5; i++) {
    await quad.services.emit(quad.orm.em.fork(), { orgId: org.id, kind: 'failing.noted', title: `older event ${i}` });
  }

  // 250 failing requests, ten at a time (concurrent raises of one problem must still count exactly).
  for (let i = 0; i < 250; i += 10) {
    const answers = await Promise.all(Array.from({ length: 10 }, () => quad.api.inject('/api/failing/acm/other')));
    for (const res of answers) if (res.statusCode !== 500) t.fail(`answered ${res.statusCode}`);
  }

  const older = await sql<{ title: string }>("select title from notifications where organization_id = ? and kind = 'failing.noted' order by id", [org.id]);
  t.same(older.map((r) => r.title), [0, 1, 2, 3, 4].map((i) => `older event ${i}`), 'the older events of other kinds are all still there');
  const events = await sql("select * from notifications where organization_id = ? and kind = 'error.unhandled'", [org.id]);
  t.equal(events.length, 1, 'one error.unhandled event');
  const problems = await sql("select * from notifications where organization_id = ? and category = 'problem'", [org.id]);
  t.equal(problems.length, 1, 'one problem');
  t.match(problems[0], { kind: 'core.error_unhandled', problem_key: 'core.error_unhandled:GET /api/failing/:org/other:TypeError', occurrences: 250, status: 'open' });
  t.notMatch(problems[0].message, /another cause/, 'the problem names the cause, not the message');
  t.notMatch(events[0].message, /another cause/, 'so does the event');
  t.equal(events[0].data.problem_id, Number(problems[0].id));
  t.equal((await sql('select count(*)::int as n from error_log where organization_id = ?', [org.id]))[0].n, 250, 'each occurrence is in the error log');

  t.test('another cause is another problem and one more event', async (t) => {
    for (let i = 0; i < 3; i++) t.equal((await quad.api.inject('/api/failing/acm/boom')).statusCode, 500);
    const keys = await sql<{ problem_key: string; occurrences: number }>("select problem_key, occurrences from notifications where organization_id = ? and category = 'problem' order by id", [org.id]);
    t.same(keys.map((k) => [k.problem_key, k.occurrences]), [
      ['core.error_unhandled:GET /api/failing/:org/other:TypeError', 250],
      ['core.error_unhandled:GET /api/failing/:org/boom:Error', 3],
    ]);
    t.equal((await sql("select count(*)::int as n from notifications where organization_id = ? and kind = 'error.unhandled'", [org.id]))[0].n, 2);
  });

  t.test('a resolved problem that recurs in the same release stays resolved and counts; no new event', async (t) => {
    await sql("update notifications set status = 'resolved', resolved_at = now() where organization_id = ? and category = 'problem'", [org.id]);
    t.equal((await quad.api.inject('/api/failing/acm/other')).statusCode, 500);
    const [problem] = await sql("select status, occurrences from notifications where problem_key = ?", ['core.error_unhandled:GET /api/failing/:org/other:TypeError']);
    t.match(problem, { status: 'resolved', occurrences: 251 });
    t.equal((await sql("select count(*)::int as n from notifications where organization_id = ? and kind = 'error.unhandled'", [org.id]))[0].n, 2);
  });

  t.test('it reopens, with one event, when it recurs in a new release', async (t) => {
    const next = await startTestApp(t, { plugins: [failing], role: 'api', databaseUrl: quad.databaseUrl, config: { RELEASE: 'next' } });
    for (let i = 0; i < 3; i++) t.equal((await next.api.inject('/api/failing/acm/other')).statusCode, 500);
    const [problem] = await sql("select status, occurrences, message from notifications where problem_key = ?", ['core.error_unhandled:GET /api/failing/:org/other:TypeError']);
    t.match(problem, { status: 'open', occurrences: 254, message: /release next/ });
    t.equal((await sql("select count(*)::int as n from notifications where organization_id = ? and kind = 'error.unhandled'", [org.id]))[0].n, 3);
  });
});
