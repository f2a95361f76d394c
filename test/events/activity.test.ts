// The Activity routes: notifications and errors with filters and paging, bulk resolve / reopen / delete (only the
// org's own rows), the audit log (changes) and the job-run log, and every validation error.
import t from 'tap';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';
import { probe } from './fixtures.js';

t.test('activity routes', async (t) => {
  const world = await startSignInWorld(t, { plugins: [probe], orgModules: { probe: true } });
  const { quad, org, officer } = world;
  const other = await quad.createOrg({ prefix: 'ieee', modules: { probe: true } });
  const token = (await signInOfficer(world, officer.id)).access_token;
  const em = () => quad.orm.em.fork();
  const sql = (q: string, params: unknown[] = []): Promise<any[]> => quad.orm.em.fork().getConnection().execute(q, params);
  const get = (path: string) => quad.api.inject({ url: `/api/dashboard/acm/${path}`, headers: bearer(token) });
  const post = (path: string, payload: unknown) => quad.api.inject({ method: 'POST', url: `/api/dashboard/acm/${path}`, headers: bearer(token), payload: payload as object });
  const emit = (orgId: number, kind: string, title: string, message = '') => quad.services.emit(em(), { orgId, kind, title, message });

  const events: number[] = [];
  for (let i = 1; i <= 12; i++) events.push((await emit(org.id, i % 3 === 0 ? 'probe.happened' : 'probe.other', `Event ${i}`, i === 5 ? 'the 100% special_one' : '')).id);
  const problem = (await quad.services.raiseProblem(em(), { orgId: org.id, key: 'probe.stuck:1', title: 'Stuck pipeline', message: 'stuck' })).id;
  const theirs = (await emit(other.id, 'probe.other', 'Their event')).id;
  await sql(`insert into notifications (organization_id, kind, title, created_at, raised_at) values (?, 'probe.other', 'Expired event', now() - interval '31 days', now() - interval '31 days')`, [org.id]);

  t.test('needs an officer token', async (t) => {
    for (const path of ['notifications', 'errors', 'changes', 'job-runs']) {
      t.equal((await quad.api.inject(`/api/dashboard/acm/${path}`)).statusCode, 401, path);
    }
    t.equal((await quad.api.inject({ method: 'POST', url: '/api/dashboard/acm/notifications/resolve', payload: { ids: [1] } })).statusCode, 401);
  });

  t.test('notifications: newest raised first, paged, with open counts; expired events and other orgs are not listed', async (t) => {
    const res = await get('notifications?per_page=5');
    t.equal(res.statusCode, 200);
    const body = res.json();
    t.equal(body.total, 13, '12 events and 1 problem');
    t.same(body.open, { events: 12, problems: 1 });
    t.same(body.items.map((n: { id: number }) => n.id), [problem, ...events.slice(-4).reverse()]);
    t.same(Object.keys(body.items[0]).sort(), ['category', 'created_at', 'data', 'id', 'key', 'kind', 'message', 'occurrences', 'raised_at', 'resolved_at', 'resolved_by', 'status', 'title']);
    t.match(body.items[0], { category: 'problem', key: 'probe.stuck:1', kind: 'probe.stuck', status: 'open' });
    const page3 = (await get('notifications?per_page=5&page=3')).json();
    t.same(page3.items.map((n: { id: number }) => n.id), events.slice(0, 3).reverse());
    t.equal((await get('notifications?page=4&per_page=5')).json().items.length, 0);
    t.notOk(JSON.stringify(body).includes('Their event'));
  });

  t.test('notification filters', async (t) => {
    const ids = async (query: string) => (await get(`notifications?per_page=200&${query}`)).json().items.map((n: { id: number }) => n.id);
    t.same(await ids('category=problem'), [problem]);
    t.equal((await ids('category=event')).length, 12);
    t.same(await ids('kind=probe.happened'), events.filter((_, i) => (i + 1) % 3 === 0).reverse());
    t.equal((await ids('kind=probe')).length, 13, 'a module prefix matches its kinds');
    t.same(await ids('kind=prob'), [], 'but not a partial word');
    t.same(await ids('q=special_'), [events[4]], 'q searches the message');
    t.same(await ids('q=100%25'), [events[4]], '% is matched literally');
    t.same(await ids('q=stuck%20PIPELINE'), [problem], 'q searches the title, case-insensitively');
    t.same(await ids('q=_'), [events[4]], '_ is matched literally');
  });

  t.test('bulk resolve and reopen touch only the org\'s rows and are audited', async (t) => {
    const picked = [events[0], events[1], theirs, 999_999, events[0]];
    const resolved = await post('notifications/resolve', { ids: picked });
    t.equal(resolved.statusCode, 200);
    t.same(resolved.json(), { ids: [events[0], events[1]].sort((a, b) => a - b), count: 2 });
    t.same((await get('notifications?status=resolved')).json().items.map((n: { id: number }) => n.id).sort(), [events[0], events[1]].sort());
    t.equal((await get('notifications')).json().open.events, 10);
    const [mine] = await sql('select status, resolved_by from notifications where id = ?', [events[0]]);
    t.same(mine, { status: 'resolved', resolved_by: `officer:${officer.id}` });
    const [their] = await sql('select status from notifications where id = ?', [theirs]);
    t.equal(their.status, 'open', 'another org\'s row is untouched');
    const [audit] = await sql(`select * from audit_log where action = 'notifications.resolve'`);
    t.match(audit, { organization_id: org.id, actor: `officer:${officer.id}`, details: { ids: [events[0], events[1]] } });

    const reopened = (await post('notifications/reopen', { ids: [events[0], events[2]] })).json();
    t.same(reopened, { ids: [events[0]], count: 1 }, 'events[2] was open already');
    t.same(await sql('select status, resolved_at, resolved_by from notifications where id = ?', [events[0]]), [{ status: 'open', resolved_at: null, resolved_by: null }]);
  });

  t.test('bulk delete removes the org\'s selected events', async (t) => {
    const res = await post('notifications/delete', { ids: [events[10], events[11], theirs] });
    t.same(res.json(), { ids: [events[10], events[11]], count: 2 });
    t.equal((await sql('select count(*)::int as n from notifications where id in (?, ?)', [events[10], events[11]]))[0].n, 0);
    t.equal((await sql('select count(*)::int as n from notifications where id = ?', [theirs]))[0].n, 1);
    t.equal((await sql(`select count(*)::int as n from audit_log where action = 'notifications.delete'`))[0].n, 1);
    t.same((await post('notifications/delete', { ids: [events[10]] })).json(), { ids: [], count: 0 }, 'deleting again deletes nothing');
  });

  t.test('errors: listed, filtered, resolved, reopened and deleted in bulk', async (t) => {
    for (const [source, origin] of [['request', 'GET /api/x'], ['job', 'probe.sync'], ['request', 'POST /api/y']] as const) {
      await quad.services.logError({ orgId: org.id, source, origin, error: new Error(`${origin} broke`), logLine: `line for ${origin}` });
    }
    await quad.services.logError({ orgId: other.id, source: 'job', origin: 'probe.sync', error: new Error('theirs broke'), logLine: 'theirs' });
    const list = (await get('errors')).json();
    t.equal(list.total, 3);
    t.equal(list.open, 3);
    t.same(list.items.map((e: { origin: string }) => e.origin), ['POST /api/y', 'probe.sync', 'GET /api/x']);
    t.match(list.items[0], { source: 'request', message: 'POST /api/y broke', log_line: 'line for POST /api/y', status: 'open', resolved_at: null, stack: /Error: POST \/api\/y broke/ });
    t.same(Object.keys(list.items[0]).sort(), ['created_at', 'host', 'id', 'log_line', 'message', 'origin', 'release', 'request_id', 'resolved_at', 'resolved_by', 'source', 'stack', 'status']);
    t.same((await get('errors?source=job')).json().items.map((e: { origin: string }) => e.origin), ['probe.sync']);
    t.same((await get('errors?q=api%2Fx')).json().items.map((e: { origin: string }) => e.origin), ['GET /api/x']);
    t.equal((await get('errors?per_page=2')).json().items.length, 2);

    const ids = list.items.map((e: { id: number }) => e.id);
    const [theirId] = (await sql('select id from error_log where organization_id = ?', [other.id])).map((r: { id: string }) => Number(r.id));
    t.same((await post('errors/resolve', { ids: [ids[0], ids[1], theirId] })).json(), { ids: [ids[1], ids[0]], count: 2 });
    t.same((await get('errors?status=resolved')).json().items.map((e: { id: number }) => e.id), [ids[0], ids[1]]);
    t.equal((await get('errors')).json().open, 1);
    t.same((await post('errors/reopen', { ids: [ids[1]] })).json(), { ids: [ids[1]], count: 1 });
    t.same((await post('errors/delete', { ids: [ids[2], theirId] })).json(), { ids: [ids[2]], count: 1 });
    t.equal((await get('errors')).json().total, 2);
    t.equal((await sql('select count(*)::int as n from error_log where id = ?', [theirId]))[0].n, 1, 'another org\'s error stays');
    t.same((await sql(`select action from audit_log where action like 'errors.%' order by id`)).map((r: { action: string }) => r.action), ['errors.resolve', 'errors.reopen', 'errors.delete']);
  });

  t.test('changes: the org\'s audit log, newest first, by action prefix or actor', async (t) => {
    await quad.services.audit(em(), { orgId: org.id, actor: 'system', action: 'probe.sync', details: { n: 1 } });
    await quad.services.audit(em(), { orgId: other.id, actor: 'system', action: 'probe.sync', details: { n: 2 } });
    const all = (await get('changes')).json();
    t.ok(all.total >= 7);
    t.match(all.items[0], { actor: 'system', action: 'probe.sync', details: { n: 1 } });
    t.same(Object.keys(all.items[0]).sort(), ['action', 'actor', 'created_at', 'details', 'id']);
    t.notOk(all.items.some((c: { details: { n?: number } }) => c.details.n === 2), 'only the org\'s rows');
    t.same((await get('changes?action=errors')).json().items.map((c: { action: string }) => c.action), ['errors.delete', 'errors.reopen', 'errors.resolve']);
    t.same((await get('changes?action=errors.reopen')).json().total, 1);
    t.equal((await get('changes?actor=system')).json().total, 1);
    t.equal((await get(`changes?actor=officer:${officer.id}&per_page=1`)).json().items.length, 1);
  });

  t.test('job runs: the org\'s runs, newest first, by status or name prefix', async (t) => {
    await sql(`insert into job_runs (organization_id, name, status, attempts, error) values
      (?, 'probe.sync', 'failed', 5, 'boom'), (?, 'probe.sync', 'succeeded', 1, null), (?, 'limits.prune', 'succeeded', 1, null), (?, 'probe.sync', 'failed', 1, 'theirs')`,
    [org.id, org.id, org.id, other.id]);
    const all = (await get('job-runs')).json();
    t.equal(all.total, 3);
    t.same(all.items.map((r: { name: string }) => r.name), ['limits.prune', 'probe.sync', 'probe.sync']);
    t.same(Object.keys(all.items[0]).sort(), ['attempts', 'error', 'finished_at', 'id', 'name', 'queued_at', 'started_at', 'status']);
    t.match((await get('job-runs?status=failed')).json().items, [{ name: 'probe.sync', attempts: 5, error: 'boom' }]);
    t.equal((await get('job-runs?name=probe')).json().total, 2);
    t.equal((await get('job-runs?name=probe.sync&status=succeeded')).json().total, 1);
  });

  t.test('every validation error is 400 naming the field', async (t) => {
    const cases: [string, string | RegExp][] = [
      ['notifications?page=0', /querystring.page: must be >= 1/],
      ['notifications?per_page=0', /querystring.per_page: must be >= 1/],
      ['notifications?per_page=201', /querystring.per_page: must be <= 200/],
      ['notifications?page=x', /querystring.page: must be integer/],
      ['notifications?category=eventz', /querystring.category/],
      ['notifications?status=closed', /querystring.status/],
      ['notifications?kind=Probe%20X', /querystring.kind: must match pattern/],
      ['notifications?q=', /querystring.q: must NOT have fewer than 1 characters/],
      [`notifications?q=${'x'.repeat(201)}`, /querystring.q: must NOT have more than 200 characters/],
      ['notifications?unknown=1', /querystring: must NOT have additional properties/],
      ['errors?source=cron', /querystring.source/],
      ['errors?status=x', /querystring.status/],
      ['errors?per_page=1000', /querystring.per_page/],
      ['changes?action=Org', /querystring.action: must match pattern/],
      ['changes?actor=', /querystring.actor/],
      ['job-runs?status=done', /querystring.status/],
      ['job-runs?name=%25', /querystring.name: must match pattern/],
    ];
    for (const [path, message] of cases) {
      const res = await get(path);
      t.equal(res.statusCode, 400, path);
      t.match(res.json(), { error: message, reason: 'validation' }, path);
    }
    const bodies: [string, unknown, RegExp][] = [
      ['notifications/resolve', {}, /body.ids: is required/],
      ['notifications/resolve', { ids: [] }, /body.ids: must NOT have fewer than 1 items/],
      ['notifications/resolve', { ids: ['1'] }, /body.ids.0: must be integer/],
      ['notifications/reopen', { ids: [0] }, /body.ids.0: must be >= 1/],
      ['notifications/delete', { ids: [1.5] }, /body.ids.0: must be integer/],
      ['notifications/delete', { ids: Array.from({ length: 501 }, (_, i) => i + 1) }, /body.ids: must NOT have more than 500 items/],
      ['notifications/resolve', { ids: [1], all: true }, /body: must NOT have additional properties/],
      ['notifications/resolve', [1, 2], /body: must be object/],
      ['errors/resolve', { ids: 'all' }, /body.ids: must be array/],
      ['errors/delete', { ids: [-1] }, /body.ids.0: must be >= 1/],
    ];
    for (const [path, body, message] of bodies) {
      const res = await post(path, body);
      t.equal(res.statusCode, 400, `${path} ${JSON.stringify(body).slice(0, 40)}`);
      t.match(res.json(), { error: message, reason: 'validation' });
    }
  });

  t.test('the routes are documented', async (t) => {
    const doc = (await quad.api.inject('/openapi.json')).json();
    for (const path of ['notifications', 'notifications/resolve', 'notifications/reopen', 'notifications/delete', 'errors', 'errors/resolve', 'errors/reopen', 'errors/delete', 'changes', 'job-runs']) {
      t.ok(doc.paths[`/api/dashboard/{org}/${path}`], path);
    }
  });
});
