// Limits through HTTP: a module's routes that reserve (409) and consume (429) in their transaction, the 20-parallel
// creates against a limit of 10, the officer's report, the superadmin routes in both ACCESS_ENFORCE modes, and
// the limits.prune job.
import t from 'tap';
import { roomInMinute, startTestApp } from '@quad/core/testing';
import { forkFor } from '../../core/src/db/orm.js';
import { bearer, signInOfficer, startSignInWorld } from '../support/sign-in.js';
import { extraModule, quotaModule, QuotaThing } from './fixture.js';

t.test('a module\'s routes under its limits', async (t) => {
  // More connections than the limit: with 10, the pool alone would let only 10 creates race at once.
  const quad = await startTestApp(t, { plugins: [quotaModule, extraModule], config: { DATABASE_POOL_MAX: 30 } });
  const org = await quad.createOrg({ prefix: 'acm', modules: { quota: true } });
  const sql = (q: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, params);
  const things = async (orgId = org.id) => forkFor(quad.orm, orgId).count(QuotaThing, {});
  const post = (path: string, payload: Record<string, unknown> = {}) => quad.api.inject({ method: 'POST', url: `/api/quota/${path}`, payload });

  t.test('count limit: 409 and nothing added', async (t) => {
    t.equal((await post('acm/things', { count: 8 })).statusCode, 201);
    const over = await post('acm/things', { count: 3 });
    t.equal(over.statusCode, 409);
    t.same(over.json(), { error: 'Limit quota.things reached: the org has 8 of 10', reason: 'limit_reached', limit: 'quota.things', value: 10, use: 8 });
    t.equal(await things(), 8, 'nothing was added');
    t.equal((await post('acm/things', { count: 2 })).statusCode, 201, 'exactly up to the limit');
    const full = await post('acm/things');
    t.equal(full.statusCode, 409);
    t.match(full.json(), { reason: 'limit_reached', value: 10, use: 10 });
    t.equal(await things(), 10);
  });

  t.test('a rolled-back create does not take room', async (t) => {
    const org2 = await quad.createOrg({ prefix: 'rollback', modules: { quota: true } });
    const res = await post('rollback/things', { count: 10, fail: true });
    t.equal(res.statusCode, 400);
    t.equal(await things(org2.id), 0);
    t.equal((await post('rollback/things', { count: 10 })).statusCode, 201);
  });

  t.test('20 parallel creates against a limit of 10 create exactly 10', async (t) => {
    const conc = await quad.createOrg({ prefix: 'conc', modules: { quota: true } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => post('conc/things', { hold_ms: 15 })));
    const codes = answers.map((a) => a.statusCode);
    t.equal(codes.filter((c) => c === 201).length, 10, '10 created');
    t.equal(codes.filter((c) => c === 409).length, 10, '10 refused');
    t.equal(await things(conc.id), 10, 'exactly 10 rows');
  });

  t.test('rate limit: 429 and nothing counted', async (t) => {
    await roomInMinute();
    const counter = async () => Number((await sql("select coalesce(sum(count), 0) as n from usage_counters where organization_id = ? and key = 'quota.calls_per_minute'", [org.id]))[0].n);
    for (let i = 1; i <= 5; i++) t.same((await post('acm/calls')).json(), { use: i, fallback: false });
    const over = await post('acm/calls');
    t.equal(over.statusCode, 429);
    const body = over.json();
    t.match(body, { error: /^Rate limit quota\.calls_per_minute reached: 5 a minute; try again in \d+ s$/, reason: 'rate_limited', limit: 'quota.calls_per_minute', value: 5, window: 'minute' });
    t.ok(body.retry_after >= 1 && body.retry_after <= 60, 'retry_after: seconds until the minute ends');
    t.equal(await counter(), 5, 'the refused call was not counted');
    const fallback = await post('acm/calls', { fallback: true });
    t.same(fallback.json(), { use: null, fallback: true }, 'a caller may catch the 429 and go on in its transaction');
    t.equal(await counter(), 5);
  });

  t.test('a rolled-back request is not counted', async (t) => {
    const org3 = await quad.createOrg({ prefix: 'undo', modules: { quota: true } });
    for (let i = 0; i < 3; i++) t.equal((await post('undo/calls', { amount: 2, fail: true })).statusCode, 400);
    const rows = await sql('select count from usage_counters where organization_id = ?', [org3.id]);
    t.same(rows, [], 'no counter was written');
    t.same((await post('undo/calls', { amount: 5 })).json(), { use: 5, fallback: false }, 'the whole minute is still there');
  });

  t.test('limits.prune deletes counters older than 8 days', async (t) => {
    await sql('delete from usage_counters');
    await sql(`insert into usage_counters (organization_id, key, window_start, count) values
      (?, 'quota.pages_per_day', date_trunc('day', now()) - interval '9 days', 7),
      (?, 'quota.calls_per_minute', now() - interval '8 days 1 minute', 2),
      (?, 'quota.pages_per_day', date_trunc('day', now()) - interval '7 days', 5),
      (?, 'quota.calls_per_minute', date_trunc('minute', now()), 1)`, [org.id, org.id, org.id, org.id]);
    const started = await quad.services.startJob(quad.orm.em.fork(), 'limits.prune', {});
    const run = await quad.waitForRun(started.runId);
    t.equal(run.status, 'succeeded');
    const left = await sql('select key, count from usage_counters order by window_start') as { key: string; count: string }[];
    t.same(left.map((r) => [r.key, Number(r.count)]), [['quota.pages_per_day', 5], ['quota.calls_per_minute', 1]]);
    t.equal(quad.registry.jobs.get('limits.prune')?.cron, '41 3 * * *', 'it runs daily');
  });

  t.test('removing an org removes its overrides and counters', async (t) => {
    const gone = await quad.createOrg({ prefix: 'gone', modules: { quota: true } });
    await post('gone/calls');
    await forkFor(quad.orm, gone.id).transactional((em) => quad.services.limits.setOverrides(em, gone.id, { 'quota.things': 1 }, 'test'));
    await sql('delete from organizations where id = ?', [gone.id]);
    t.same(await sql('select 1 from usage_counters where organization_id = ? union all select 1 from org_limits where organization_id = ?', [gone.id, gone.id]), []);
  });
});

const ADMIN_ID = '999000333';

/** The test modules' limits (core modules may declare their own, always on). */
const ours = <T extends { module: string }>(entries: T[]): T[] => entries.filter((e) => e.module === 'quota' || e.module === 'extra');

for (const enforce of [false, true]) {
  t.test(`limits routes for officers and the superadmin, ACCESS_ENFORCE=${enforce}`, async (t) => {
    const world = await startSignInWorld(t, {
      plugins: [quotaModule, extraModule], orgModules: { quota: true },
      config: { ACCESS_ENFORCE: enforce, SYS_ADMIN: [ADMIN_ID], LIMIT_QUOTA_CALLS_PER_MINUTE: '50' },
    });
    const { quad, discord, org } = world;
    const other = await quad.createOrg({ prefix: 'ieee', modules: {} });
    const officer = await signInOfficer(world, world.officer.id);
    discord.addUser({ id: ADMIN_ID, username: 'root' });
    const admin = await signInOfficer(world, ADMIN_ID);
    const sql = (q: string, params: unknown[] = []) => quad.orm.em.fork().getConnection().execute(q, params);
    const put = (orgRef: string, payload: unknown, token = admin.access_token) =>
      quad.api.inject({ method: 'PUT', url: `/api/superadmin/limits/${orgRef}`, headers: bearer(token), payload: payload as Record<string, unknown> });
    // 8 things of 10: at 80 %.
    for (let i = 0; i < 8; i++) await quad.api.inject({ method: 'POST', url: '/api/quota/acm/things', payload: {} });
    // The reads below see this minute's use: start with room left in the minute.
    await roomInMinute(20_000);
    await quad.api.inject({ method: 'POST', url: '/api/quota/acm/calls', payload: { amount: 3 } });

    t.test('GET /api/organizations/:org/limits: the modules that are on, with use', async (t) => {
      t.equal((await quad.api.inject({ url: '/api/organizations/acm/limits' })).statusCode, 401);
      const res = await quad.api.inject({ url: '/api/organizations/acm/limits', headers: bearer(officer.access_token) });
      t.equal(res.statusCode, 200);
      const body = res.json();
      body.limits = ours(body.limits);
      t.same(body.org, { id: org.id, prefix: 'acm' });
      t.same(body.limits.map((e: { key: string }) => e.key), ['quota.things', 'quota.calls_per_minute', 'quota.pages_per_day', 'quota.hourly', 'quota.shared_pages']);
      t.match(body.limits[0], { key: 'quota.things', kind: 'count', value: 10, source: 'default', use: 8, paid_by: 'org', near_limit: true });
      t.match(body.limits[1], { key: 'quota.calls_per_minute', kind: 'rate', window: 'minute', value: 50, source: 'setting', default: 5, use: 3, paid_by: 'metered', integrations: ['quota_api'] });
      t.equal(body.limits[4].paid_by, 'shared');

      await quad.updateOrg(org.id, { modules: { quota: true, extra: true } });
      const withExtra = (await quad.api.inject({ url: '/api/organizations/acm/limits', headers: bearer(officer.access_token) })).json();
      t.match(withExtra.limits.find((e: { key: string }) => e.key === 'extra.widgets'), { module: 'extra', value: 3, use: 2 });
      await quad.updateOrg(org.id, { modules: { quota: true } });

      const notOfficer = await quad.api.inject({ url: '/api/organizations/ieee/limits', headers: bearer(officer.access_token) });
      t.equal(notOfficer.statusCode, enforce ? 403 : 200, 'another org: refused when enforced');
      if (!enforce) t.same(ours(notOfficer.json().limits), [], 'an org with the modules off has none of their limits');
    });

    t.test('superadmin routes: 401 without a token, 403 for an officer in both modes', async (t) => {
      t.equal((await quad.api.inject({ url: '/api/superadmin/limits' })).statusCode, 401);
      t.equal((await put('acm', { 'quota.things': 1 }, '')).statusCode, 401);
      const list = await quad.api.inject({ url: '/api/superadmin/limits', headers: bearer(officer.access_token) });
      t.equal(list.statusCode, 403);
      t.equal(list.json().reason, 'not_superadmin');
      const change = await put('acm', { 'quota.things': 1 }, officer.access_token);
      t.equal(change.statusCode, 403);
      t.equal(change.json().reason, 'not_superadmin');
      t.same(await sql('select * from org_limits'), [], 'nothing was set');
    });

    t.test('GET /api/superadmin/limits: every org, use, overrides, near limits marked', async (t) => {
      const res = await quad.api.inject({ url: '/api/superadmin/limits', headers: bearer(admin.access_token) });
      t.equal(res.statusCode, 200);
      const { orgs } = res.json();
      t.same(orgs.map((o: { prefix: string }) => o.prefix), ['acm', 'ieee']);
      t.match(orgs[0], { id: org.id, name: 'ACM', near_limit: true, overrides: {} });
      t.match(orgs[0].limits.find((e: { key: string }) => e.key === 'quota.things'), { use: 8, value: 10, near_limit: true });
      t.match(orgs[0].limits.find((e: { key: string }) => e.key === 'quota.calls_per_minute'), { use: 3, value: 50, near_limit: false });
      t.match(orgs[1], { id: other.id, prefix: 'ieee', name: 'IEEE', near_limit: false, overrides: {} });
      t.same(ours(orgs[1].limits), [], 'the modules it has off are left out');
    });

    t.test('PUT /api/superadmin/limits/:org: validation', async (t) => {
      const cases: [unknown, string][] = [
        [{ 'quota.nope': 1 }, 'body.quota.nope: is not a limit of any loaded module'],
        [{ nothing: 1 }, 'body.nothing: is not a limit of any loaded module'],
        [{ 'quota.things': -1 }, 'body.quota.things: must be a whole number from 0 to 2147483647, null (no limit) or "default" (got -1)'],
        [{ 'quota.things': 1.5 }, 'body.quota.things: must be a whole number from 0 to 2147483647, null (no limit) or "default" (got 1.5)'],
        [{ 'quota.things': '5' }, 'body.quota.things: must be a whole number from 0 to 2147483647, null (no limit) or "default" (got "5")'],
        [{ 'quota.things': true }, 'body.quota.things: must be a whole number from 0 to 2147483647, null (no limit) or "default" (got true)'],
        [{ 'quota.things': false }, 'body.quota.things: must be a whole number from 0 to 2147483647, null (no limit) or "default" (got false)'],
        [{ 'quota.things': 'unlimited' }, 'body.quota.things: must be a whole number from 0 to 2147483647, null (no limit) or "default" (got "unlimited")'],
        [{ 'quota.things': [3] }, 'body.quota.things: must be a whole number from 0 to 2147483647, null (no limit) or "default" (got [3])'],
        [{ 'quota.things': 2147483648 }, 'body.quota.things: must be a whole number from 0 to 2147483647, null (no limit) or "default" (got 2147483648)'],
        [{ 'quota.things': 3, 'quota.hourly': 'lots' }, 'body.quota.hourly: must be a whole number from 0 to 2147483647, null (no limit) or "default" (got "lots")'],
        [[{ 'quota.things': 3 }], 'body: must be an object of limit keys to a whole number, null or "default"'],
      ];
      for (const [payload, error] of cases) {
        const res = await put('acm', payload);
        t.equal(res.statusCode, 400, JSON.stringify(payload));
        t.equal(res.json().error, error);
        t.equal(res.json().reason, 'validation');
      }
      t.equal((await put('nope', { 'quota.things': 1 })).statusCode, 404, 'an unknown org');
      t.same(await sql('select * from org_limits'), [], 'all or nothing: nothing was set');
      t.same(await sql("select * from audit_log where action = 'limits.override'"), []);
    });

    t.test('PUT /api/superadmin/limits/:org sets, lifts and removes overrides, audited', async (t) => {
      const res = await put('acm', { 'quota.things': 12, 'quota.calls_per_minute': null, 'quota.pages_per_day': 0, 'quota.hourly': 'default' });
      t.equal(res.statusCode, 200);
      const body = res.json();
      t.same(body.org, { id: org.id, prefix: 'acm' });
      t.same(body.overrides, { 'quota.things': 12, 'quota.calls_per_minute': null, 'quota.pages_per_day': 0 });
      t.same(body.changes, [
        { key: 'quota.things', from: 'default', to: 12 },
        { key: 'quota.calls_per_minute', from: 'default', to: null },
        { key: 'quota.pages_per_day', from: 'default', to: 0 },
      ], '"default" on a key without an override changes nothing');
      const byKey = Object.fromEntries(body.limits.map((e: { key: string }) => [e.key, e]));
      t.match(byKey['quota.things'], { value: 12, source: 'override', use: 8, near_limit: false });
      t.match(byKey['quota.calls_per_minute'], { value: null, source: 'override' });
      t.match(byKey['quota.pages_per_day'], { value: 0, source: 'override' });
      t.match(byKey['quota.hourly'], { value: 100, source: 'default' });

      const [audit] = await sql("select * from audit_log where action = 'limits.override'");
      t.equal(audit.organization_id, org.id);
      t.equal(audit.actor, `superadmin:${ADMIN_ID}`);
      t.same(audit.details.changes, body.changes);

      // The new values are in force at once.
      t.equal((await quad.api.inject({ method: 'POST', url: '/api/quota/acm/things', payload: { count: 4 } })).statusCode, 201);
      t.equal((await quad.api.inject({ method: 'POST', url: '/api/quota/acm/calls', payload: { amount: 1000 } })).statusCode, 200, 'null: no limit');

      const byId = await put(String(org.id), { 'quota.things': 'default', 'quota.calls_per_minute': 7 });
      t.equal(byId.statusCode, 200, 'the org by id');
      t.same(byId.json().overrides, { 'quota.calls_per_minute': 7, 'quota.pages_per_day': 0 });
      t.match(byId.json().limits.find((e: { key: string }) => e.key === 'quota.things'), { value: 10, source: 'default', use: 12 });
      t.same(byId.json().changes, [{ key: 'quota.things', from: 12, to: 'default' }, { key: 'quota.calls_per_minute', from: null, to: 7 }]);
      t.equal((await sql("select count(*)::int as n from audit_log where action = 'limits.override'"))[0].n, 2);

      const list = (await quad.api.inject({ url: '/api/superadmin/limits', headers: bearer(admin.access_token) })).json();
      t.same(list.orgs[0].overrides, { 'quota.calls_per_minute': 7, 'quota.pages_per_day': 0 }, 'the list shows the overrides');
    });
  });
}
