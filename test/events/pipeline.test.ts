// The event pipeline: emit() stores the event and runs the handlers of the modules that are on, in the
// emitting transaction, each in a savepoint; undeclared kinds are refused; the job runner's job.failed and an
// org's unhandled request errors are events too; retention keeps 30 days and the newest 200 per org.
import t from 'tap';
import { startTestApp } from '@quad/core/testing';
import sample from '../fixtures/sample-module.js';
import { listener, probe, seen } from './fixtures.js';

t.test('event pipeline', async (t) => {
  const quad = await startTestApp(t, { plugins: [probe, listener, sample] });
  const org = await quad.createOrg({ prefix: 'acm', modules: { probe: true, listener: true, sample: true } });
  const other = await quad.createOrg({ prefix: 'ieee', modules: { probe: true } });
  const em = () => quad.orm.em.fork();
  const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, params) as Promise<T[]>;
  const emit = (orgId: number, kind: string, data: Record<string, unknown> = {}) =>
    quad.services.emit(em(), { orgId, kind, title: `${kind} title`, message: 'details', data });
  t.beforeEach(() => { seen.length = 0; });

  t.test('an event is stored and handed to the matching handlers of modules that are on', async (t) => {
    const event = await emit(org.id, 'probe.happened', { n: 1 });
    t.match(event, { orgId: org.id, kind: 'probe.happened', title: 'probe.happened title', message: 'details', data: { n: 1 } });
    t.ok(event.id > 0 && event.createdAt instanceof Date);
    const [row] = await sql('select * from notifications where id = ?', [event.id]);
    t.match(row, { organization_id: org.id, category: 'event', kind: 'probe.happened', status: 'open', problem_key: null, occurrences: 1 });
    t.same(seen.map((s) => [s.module, s.kind, s.id]).sort(), [['listener', 'probe.happened', event.id], ['probe', 'probe.happened', event.id]]);
    t.ok(seen.every((s) => s.visible >= 1), 'the handler\'s EntityManager is bound to the org (and sees the new row)');

    seen.length = 0;
    await emit(org.id, 'probe.other');
    t.same(seen.map((s) => s.module), ['listener'], 'probe handles only probe.happened; listener takes *');

    seen.length = 0;
    await emit(other.id, 'probe.happened');
    t.same(seen.map((s) => s.module), ['probe'], 'listener is off for ieee: its handler is skipped');
  });

  t.test('a kind no loaded module declares is refused and nothing is stored', async (t) => {
    const before = await sql<{ n: number }>('select count(*)::int as n from notifications');
    await t.rejects(emit(org.id, 'probe.unknown'), { message: /no loaded module declares the event kind "probe.unknown"/ });
    t.same(await sql('select count(*)::int as n from notifications'), before);
  });

  t.test('a failing handler is rolled back to its savepoint; the event, the emitter and other handlers go on', async (t) => {
    const tem = em();
    const event = await tem.transactional(async (tx) => {
      await tx.execute(`insert into audit_log (organization_id, actor, action) values (?, 'system', 'probe.emitter_wrote')`, [org.id]);
      return quad.services.emit(tx, { orgId: org.id, kind: 'probe.happened', title: 'breaks', data: { fail: true } });
    });
    t.equal((await sql('select count(*)::int as n from notifications where id = ?', [event.id]))[0].n, 1, 'the event is kept');
    t.equal((await sql(`select count(*)::int as n from audit_log where action = 'probe.emitter_wrote'`))[0].n, 1, 'the emitter\'s write is kept');
    t.equal((await sql(`select count(*)::int as n from audit_log where action = 'probe.handler_wrote'`))[0].n, 0, 'the failing handler\'s write is rolled back');
    t.same(seen.map((s) => s.module).sort(), ['listener', 'probe'], 'the other handler still ran');
    const [logged] = await sql(`select * from error_log where source = 'event'`);
    t.match(logged, { organization_id: org.id, origin: 'probe handler of probe.happened', message: 'probe handler broke on purpose' });
    t.match(logged.log_line, /event handler of module probe failed for probe.happened/);
  });

  t.test('an event emitted in a transaction that rolls back leaves nothing', async (t) => {
    await t.rejects(em().transactional(async (tx) => {
      await quad.services.emit(tx, { orgId: org.id, kind: 'probe.other', title: 'rolled back' });
      throw new Error('roll back');
    }), /roll back/);
    t.equal((await sql(`select count(*)::int as n from notifications where title = 'rolled back'`))[0].n, 0);
  });

  t.test('the job runner emits job.failed (and handlers receive it)', async (t) => {
    const res = await quad.api.inject({ method: 'POST', url: '/api/sample/acm/work', payload: { ms: 0, fail: true } });
    const run = await quad.waitForRun(res.json().run_id);
    t.equal(run.status, 'failed');
    // The runner marks the run failed first, then writes the error log and emits the event.
    let note: Record<string, any> | undefined;
    for (let i = 0; i < 200 && !note; i++) {
      [note] = await sql(`select * from notifications where kind = 'job.failed' and organization_id = ?`, [org.id]);
      if (!note) await new Promise((r) => setTimeout(r, 20));
    }
    t.match(note, { title: 'Job sample.work failed', message: 'Internal error (details in the error log)', data: { job: 'sample.work', run: run.id } });
    for (let i = 0; i < 100 && !seen.some((s) => s.kind === 'job.failed'); i++) await new Promise((r) => setTimeout(r, 20));
    t.ok(seen.some((s) => s.module === 'listener' && s.kind === 'job.failed'));
  });

  t.test('an unhandled error in a request of an org is the event error.unhandled', async (t) => {
    const res = await quad.api.inject('/api/probe/acm/boom');
    t.equal(res.statusCode, 500);
    const [note] = await sql(`select * from notifications where kind = 'error.unhandled'`);
    // The event reaches outbound webhooks: it names the cause, never the error's message (the error log has it).
    t.match(note, { organization_id: org.id, title: 'Unhandled error in GET /api/probe/:org/boom', message: /^Error in GET \/api\/probe\/:org\/boom/ });
    t.notMatch(note.message, /probe exploded/);
    t.equal(note.data.origin, 'GET /api/probe/:org/boom');
    t.equal(note.data.request_id, res.headers['x-request-id']);
    const [logged] = await sql(`select * from error_log where source = 'request' and organization_id = ?`, [org.id]);
    t.equal(logged.message, 'probe exploded');
  });

  t.test('retention: the newest 200 events per org, 30 days; problems do not count', async (t) => {
    const fresh = await quad.createOrg({ prefix: 'ret', modules: {} });
    await quad.services.raiseProblem(em(), { orgId: fresh.id, key: 'probe.stuck:1', title: 'Stuck' });
    // Three events from 31 days ago and one from 29 days ago, written directly.
    await sql(`insert into notifications (organization_id, kind, title, created_at, raised_at)
               select ?, 'probe.other', 'old ' || g, now() - interval '31 days', now() - interval '31 days' from generate_series(1, 3) g`, [fresh.id]);
    await sql(`insert into notifications (organization_id, kind, title, created_at, raised_at) values (?, 'probe.other', 'recent', now() - interval '29 days', now() - interval '29 days')`, [fresh.id]);
    const first = await emit(fresh.id, 'probe.other');
    const titles = (await sql<{ title: string }>(`select title from notifications where organization_id = ? and category = 'event' order by id`, [fresh.id])).map((r) => r.title);
    t.same(titles, ['recent', 'probe.other title'], 'events older than 30 days go when the next event arrives');

    const ids = [first.id];
    for (let i = 0; i < 204; i++) ids.push((await quad.services.emit(em(), { orgId: fresh.id, kind: 'probe.other', title: `e${i}` })).id);
    const kept = (await sql<{ id: string }>(`select id from notifications where organization_id = ? and category = 'event' order by id`, [fresh.id])).map((r) => Number(r.id));
    t.equal(kept.length, 200);
    t.same(kept, ids.slice(-200), 'the newest 200 are kept');
    t.equal((await sql(`select count(*)::int as n from notifications where organization_id = ? and category = 'problem'`, [fresh.id]))[0].n, 1, 'the problem stays');
    t.ok((await sql(`select count(*)::int as n from notifications where organization_id = ? and category = 'event'`, [org.id]))[0].n > 0, 'other orgs keep theirs');
  });

  t.test('the daily events.prune job removes old events of every org', async (t) => {
    t.equal(quad.registry.jobs.get('events.prune')?.cron, '17 4 * * *');
    await sql(`insert into notifications (organization_id, kind, title, created_at) values (?, 'probe.other', 'stale', now() - interval '40 days'), (?, 'probe.other', 'stale', now() - interval '31 days')`, [org.id, other.id]);
    await sql(`insert into notifications (organization_id, category, kind, problem_key, title, created_at) values (?, 'problem', 'probe.stuck', 'probe.stuck:old', 'old problem', now() - interval '90 days')`, [org.id]);
    const run = await quad.services.startJob(em(), 'events.prune', {});
    t.equal((await quad.waitForRun(run.runId)).status, 'succeeded');
    t.equal((await sql(`select count(*)::int as n from notifications where title = 'stale'`))[0].n, 0);
    t.equal((await sql(`select count(*)::int as n from notifications where title = 'old problem'`))[0].n, 1, 'problems are not pruned');
  });
});
