// services.acrossOrgs, the one path for work across orgs: as the owner, in one transaction (committed when the work
// resolves, rolled back when it throws), with every org's rows; its reason checked, logged and counted; and the
// org-bound handle it hands a sweep for one org's work, which row-level security keeps in that org.
import t from 'tap';
import { captureLogs, startTestApp } from '@quad/core/testing';
import sample, { SampleItem } from '../fixtures/sample-module.js';

t.test('acrossOrgs: every org\'s rows, one transaction, a checked reason, logged and counted', async (t) => {
  const logs = captureLogs('debug');
  const quad = await startTestApp(t, { plugins: [sample], logger: logs.logger, config: { DATABASE_SERVICE_ROLE: 'quad_service' } });
  const [aa, bb] = [await quad.createOrg({ prefix: 'aa', modules: { sample: true } }), await quad.createOrg({ prefix: 'bb', modules: { sample: true } })];
  for (const [prefix, label] of [['aa', 'one'], ['bb', 'two'], ['bb', 'three']]) {
    t.equal((await quad.api.inject({ method: 'POST', url: `/api/sample/${prefix}/items`, payload: { label } })).statusCode, 201);
  }
  const { services } = quad;

  const counts = await services.acrossOrgs('test.count_items', (all) =>
    all.sql<{ organization_id: number; n: number }>`select organization_id, count(*)::int as n from sample_items group by 1 order by 1`);
  t.same(counts, [{ organization_id: aa.id, n: 1 }, { organization_id: bb.id, n: 2 }], 'its statements see every org\'s rows');
  const found = await services.acrossOrgs('test.find_items', ({ em }) => em.find(SampleItem, {}, { orderBy: { id: 'asc' } }));
  t.same(found.map((i) => i.label), ['one', 'two', 'three'], 'its EntityManager too: the org filter is off');

  await t.rejects(services.acrossOrgs('test.insert_then_fail', async (all) => {
    await all.run`insert into sample_items (organization_id, label) values (${aa.id}, 'kept?')`;
    throw new Error('the work failed');
  }), /the work failed/);
  await services.acrossOrgs('test.insert', ({ em }) => {
    em.create(SampleItem, { organization: bb.id, label: 'flushed' });
    return Promise.resolve();
  });
  const labels = await services.acrossOrgs('test.labels', (all) => all.sql<{ label: string }>`select label from sample_items order by id`);
  t.same(labels.map((r) => r.label), ['one', 'two', 'three', 'flushed'], 'work that throws is rolled back; what its EntityManager persisted is flushed');

  const nested = await services.acrossOrgs('test.outer', async (all) => {
    await all.run`insert into sample_items (organization_id, label) values (${aa.id}, 'outer')`;
    return services.acrossOrgs('test.inner', (inner) => inner.sql<{ label: string }>`select label from sample_items where label = 'outer'`);
  });
  t.same(nested, [{ label: 'outer' }], 'a call inside another\'s work runs in its transaction (it sees the uncommitted row)');
  await services.acrossOrgs('test.cleanup', (all) => all.run`delete from sample_items where label = 'outer'`);

  for (const reason of ['', 'count', 'Test.count', 'test.count items', 'test.']) {
    await t.rejects(services.acrossOrgs(reason, async () => 1), /the reason must be "<module>\.<what>"/, `reason ${JSON.stringify(reason)} refused`);
  }
  t.ok(logs.lines.some((l) => l.msg === 'work across orgs' && l.reason === 'test.count_items' && l.level === 20), 'each use is logged at debug level with its reason');
  const { text } = await quad.metrics.exposition();
  t.match(text, /quad_across_orgs_total\{reason="test.count_items"\} 1\n/, 'and counted by reason');
  t.match(text, /quad_across_orgs_total\{reason="test.labels"\} 1\n/);
  t.match(text, /quad_across_orgs_total\{reason="test.inner"\} 1\n/, 'a nested call counts under its own reason');
});

t.test('forOrg: one org\'s work found by a sweep runs on the ordinary path, kept in that org', async (t) => {
  const quad = await startTestApp(t, { plugins: [sample], config: { DATABASE_SERVICE_ROLE: 'quad_service' } });
  const [aa, bb] = [await quad.createOrg({ prefix: 'aa', modules: { sample: true } }), await quad.createOrg({ prefix: 'bb', modules: { sample: true } })];
  await quad.api.inject({ method: 'POST', url: '/api/sample/bb/items', payload: { label: 'theirs' } });
  const db = await quad.services.acrossOrgs('test.sweep', async (all) => all.forOrg(aa.id));
  t.equal(db.org, aa.id);
  t.same(await db.sql`select label from sample_items`, [], 'used after the sweep returned; the other org\'s row is not seen');
  await db.run`insert into sample_items (organization_id, label) values (${db.org}, 'ours')`;
  await t.rejects(db.run`insert into sample_items (organization_id, label) values (${bb.id}, 'smuggled')`,
    /row-level security/, 'a row of another org is refused');
  t.equal(await db.run`update sample_items set label = 'changed' where label = 'theirs'`, 0, 'another org\'s row is not changed');
  const rows = await quad.orm.em.fork().execute<{ organization_id: number; label: string }[]>('select organization_id, label from sample_items order by id');
  t.same(rows, [{ organization_id: bb.id, label: 'theirs' }, { organization_id: aa.id, label: 'ours' }]);
});
