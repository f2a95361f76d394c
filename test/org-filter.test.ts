// Org isolation: a query in org A's context cannot return org B's rows, and a query with no org fails closed.
import t from 'tap';
import { ORG_FILTER } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import { forkFor } from '../core/src/db/orm.js';
import { AuditEntry } from '../core/src/entities/logs.js';
import sample, { SampleItem } from './fixtures/sample-module.js';

t.test('the org filter', async (t) => {
  const quad = await startTestApp(t, { plugins: [sample] });
  const a = await quad.createOrg({ prefix: 'orga', modules: { sample: true } });
  const b = await quad.createOrg({ prefix: 'orgb', modules: { sample: true } });
  const seed = quad.orm.em.fork();
  seed.create(SampleItem, { organization: a.id, label: 'a1' });
  seed.create(SampleItem, { organization: b.id, label: 'b1' });
  seed.create(SampleItem, { organization: b.id, label: 'b2' });
  await seed.flush();

  t.test('find, count and findOne see only the bound org', async (t) => {
    const em = forkFor(quad.orm, a.id);
    t.same((await em.find(SampleItem, {})).map((i) => i.label), ['a1']);
    t.equal(await em.count(SampleItem, {}), 1);
    t.equal(await em.findOne(SampleItem, { label: 'b1' }), null, 'asking for B\'s row by value finds nothing');
    const bRow = await forkFor(quad.orm, b.id).findOneOrFail(SampleItem, { label: 'b1' });
    t.equal(await em.findOne(SampleItem, { id: bRow.id }), null, 'nor by primary key');
    t.same((await em.find(SampleItem, { organization: b.id })).length, 0, 'nor by naming B in the query');
  });

  t.test('nativeUpdate and nativeDelete stay inside the org', async (t) => {
    const em = forkFor(quad.orm, a.id);
    t.equal(await em.nativeUpdate(SampleItem, { label: 'b2' }, { label: 'hijacked' }), 0);
    t.equal(await em.nativeDelete(SampleItem, { label: 'b1' }), 0);
    t.equal(await forkFor(quad.orm, b.id).count(SampleItem, {}), 2, 'B still has both rows');
  });

  t.test('over HTTP, each org sees its own rows', async (t) => {
    t.same((await quad.api.inject('/api/sample/orga/items')).json(), { items: ['a1'] });
    t.same((await quad.api.inject('/api/sample/orgb/items')).json(), { items: ['b1', 'b2'] });
  });

  t.test('a query with no org bound fails closed', async (t) => {
    await t.rejects(quad.orm.em.fork().find(SampleItem, {}), /No arguments provided for filter 'org'/);
  });

  t.test('turning the filter off is explicit', async (t) => {
    const all = await quad.orm.em.fork().find(SampleItem, {}, { filters: { [ORG_FILTER]: false } });
    t.equal(all.length, 3);
  });

  t.test('removing an org removes its rows', async (t) => {
    await quad.orm.em.fork().getConnection().execute(`delete from organizations where id = ${b.id}`);
    const left = await quad.orm.em.fork().find(SampleItem, {}, { filters: false });
    t.same(left.map((i) => i.label), ['a1']);
  });
});

t.test('an org-owned table with rows of no org (defineOrgEntity nullableOrg: the log tables)', async (t) => {
  const quad = await startTestApp(t);
  const a = await quad.createOrg({ prefix: 'orga' });
  const b = await quad.createOrg({ prefix: 'orgb' });
  const seed = quad.orm.em.fork();
  for (const [organization, action] of [[a.id, 'a.act'], [b.id, 'b.act'], [null, 'none.act']] as const) {
    await seed.insert(AuditEntry, { organization, actor: 'system', action });
  }

  t.equal(AuditEntry.meta.properties.organization.nullable, true, 'the org may be null');
  t.ok(AuditEntry.meta.filters[ORG_FILTER]?.default, 'and the org filter is on by default');
  t.same((await forkFor(quad.orm, a.id).find(AuditEntry, {})).map((r) => r.action), ['a.act'], 'an org sees its own rows, not those of no org');
  t.equal(await forkFor(quad.orm, a.id).count(AuditEntry, { organization: null }), 0, 'nor by asking for them');
  await t.rejects(quad.orm.em.fork().find(AuditEntry, {}), /No arguments provided for filter 'org'/, 'with no org bound it fails closed');
  const all = await quad.orm.em.fork().find(AuditEntry, {}, { filters: { [ORG_FILTER]: false }, orderBy: { id: 'asc' } });
  t.same(all.map((r) => [r.organization?.id ?? null, r.action]), [[a.id, 'a.act'], [b.id, 'b.act'], [null, 'none.act']], 'with the filter off every row is read');
});
