// Cross-cutting chores done once in the core: a count limit checked by the route option `countLimit` (exact under
// concurrency, nothing kept on failure), `request.audit` (org and actor from the request), and defineOrgEntity
// (the org property and filter come with the declaration).
import t from 'tap';
import { defineModule, OrgParams, type RoutesPlugin } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import { crate, CrateItem } from './fixtures/crate.js';

t.test('countLimit, request.audit and defineOrgEntity', async (t) => {
  const quad = await startTestApp(t, { plugins: [crate] });
  const acm = await quad.createOrg({ prefix: 'acm', modules: { crate: true } });
  const ieee = await quad.createOrg({ prefix: 'ieee', modules: { crate: true } });
  const add = (org: string, label: string, fail = false) => quad.api.inject({ method: 'POST', url: `/api/crate/${org}/items`, payload: { label, fail } });
  const count = async (orgId: number) => (await quad.orm.em.fork().getConnection().execute('select count(*)::int as n from crate_items where organization_id = ?', [orgId]))[0].n;

  t.test('20 parallel creates against a limit of 10 make exactly 10', async (t) => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => add('acm', `item ${i}`)));
    t.same(answers.map((r) => r.statusCode).sort(), [...Array(10).fill(201), ...Array(10).fill(409)]);
    t.match(answers.find((r) => r.statusCode === 409)!.json(), { reason: 'limit_reached', limit: 'crate.items', value: 10, use: 10 });
    t.equal(await count(acm.id), 10);
    t.equal(await count(ieee.id), 0, 'the limit is per org');
    t.equal((await add('ieee', 'first')).statusCode, 201);
  });

  t.test('a refused request keeps nothing: no row, no audit, and the limit counts what is there', async (t) => {
    await quad.orm.em.fork().getConnection().execute('delete from crate_items where organization_id = ? and id = (select max(id) from crate_items where organization_id = ?)', [acm.id, acm.id]);
    const audits = async () => (await quad.orm.em.fork().getConnection().execute("select count(*)::int as n from audit_log where action = 'crate.add'"))[0].n;
    const before = await audits();
    const failed = await add('acm', 'doomed', true);
    t.equal(failed.statusCode, 400);
    t.equal(await count(acm.id), 9, 'the insert was rolled back with the route\'s transaction');
    t.equal(await audits(), before, 'so was its audit row');
    t.equal((await add('acm', 'fits')).statusCode, 201, 'the freed slot is usable');
    t.equal((await add('acm', 'over')).statusCode, 409);
    const bad = await quad.api.inject({ method: 'POST', url: '/api/crate/acm/items', payload: { label: '' } });
    t.equal(bad.statusCode, 400, 'validation comes before the reservation');
  });

  t.test('request.audit fills the org and the actor', async (t) => {
    const [row] = await quad.orm.em.fork().getConnection().execute("select organization_id, actor, details from audit_log where action = 'crate.add' order by id desc limit 1");
    t.match(row, { organization_id: acm.id, actor: 'anonymous', details: { id: Number } });
  });

  t.test('defineOrgEntity: the org filter is on, and fails closed without an org', async (t) => {
    t.same((await quad.api.inject('/api/crate/ieee/items')).json(), { labels: ['first'] }, 'one org never sees another\'s rows');
    t.equal(await quad.emFor(ieee.id).count(CrateItem, {}), 1);
    await t.rejects(quad.orm.em.fork().count(CrateItem, {}), /No arguments provided for filter 'org'|filter/);
    t.ok(CrateItem.meta.properties.organization, 'the organization property is declared');
  });
});

t.test('a bad countLimit refuses boot, naming the plugin and the route', async (t) => {
  const withRoute = (countLimit: string, url = '/api/crate/:org/more'): RoutesPlugin => async (app) => {
    app.post(url, { config: { auth: 'public', countLimit }, schema: { params: url.includes(':org') ? OrgParams : undefined } }, async () => ({}));
  };
  const cases: [string, string, string | undefined, RegExp][] = [
    ['undeclared', 'crate.nothing', undefined, /config\.countLimit "crate\.nothing" is not a limit this module declares/],
    ['a rate limit', 'crate.per_day', undefined, /config\.countLimit "crate\.per_day" is a rate limit, not a count limit/],
    ['another module\'s limit', 'mcp.calls_per_minute', undefined, /config\.countLimit "mcp\.calls_per_minute" is not a limit this module declares/],
    ['a route without an org', 'crate.items', '/api/crate/all', /config\.countLimit needs an org route/],
  ];
  for (const [name, key, url, message] of cases) {
    const mod = defineModule({
      ...crate, limits: [...crate.limits, { key: 'crate.per_day', kind: 'rate', window: 'day', default: 5, description: 'x' }],
      routes: withRoute(key, url),
    });
    await t.rejects(startTestApp(t, { plugins: [mod] }), { name: 'ManifestError', message: new RegExp(`^Plugin "crate": routes: POST ${(url ?? '/api/crate/:org/more').replace(/\//g, '\\/')}: ${message.source}`) }, name);
  }
});
