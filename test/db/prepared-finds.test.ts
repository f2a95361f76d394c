// The driver's prepared simple finds (db/prepared-finds.ts) answer exactly what MikroORM's own query builder
// answers: each find runs on Quad's ORM and on a second ORM with the stock driver over the same database, and the
// two results must be equal — with the org filter, null, dates, JSON, relations, order, limit and offset — while the
// driver's counter shows which finds took the prepared path. Anything else falls back to MikroORM's path.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { EntityManager, MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { LockMode, wrap } from '@mikro-orm/core';
import { defineModule, defineOrgEntity, p } from '@quad/core';
import { startTestApp } from '@quad/core/testing';
import { forkFor } from '../../core/src/db/orm.js';
import { QuadPostgreSqlDriver } from '../../core/src/db/prepared-finds.js';
import { QuadEntityManager } from '../../core/src/db/entity-manager.js';
import { User } from '../../core/src/auth/entities.js';

const Probe = defineOrgEntity({
  name: 'ProbesItem',
  tableName: 'probes_items',
  properties: {
    id: p.integer().primary().autoincrement(),
    label: p.string(),
    note: p.string().nullable(),
    active: p.boolean().default(true),
    rank: p.integer().default(0),
    seenAt: p.datetime().nullable(),
    data: p.json<{ tags: string[] }>().nullable(),
    owner: p.manyToOne(User).nullable(),
  },
});
const migrations = mkdtempSync(join(tmpdir(), 'quad-probes-'));
writeFileSync(join(migrations, '0001_probes_items.sql'), `create table probes_items (
  id serial primary key, organization_id int not null references organizations(id) on delete cascade,
  label text not null, note text, active boolean not null default true, rank int not null default 0,
  seen_at timestamptz, data jsonb, owner_id int references users(id))`);
const probes = defineModule({
  name: 'probes', title: 'Probes', description: 'Prepared find probes', category: 'Tests', entities: [Probe], tables: { probes_items: 'org' }, migrations,
});

t.test('prepared simple finds', async (t) => {
  const quad = await startTestApp(t, { plugins: [probes] });
  const a = await quad.createOrg({ prefix: 'orga' });
  const b = await quad.createOrg({ prefix: 'orgb' });
  const sql = quad.orm.em.fork().getConnection();
  await sql.execute(`insert into users (chat_user_id, username) values ('111', 'ada'), ('222', 'grace')`);
  const [ada] = await sql.execute<{ id: number }[]>(`select id from users where username = 'ada'`);
  const seenAt = new Date('2026-05-01T10:00:00.000Z');
  await sql.execute(`insert into probes_items (organization_id, label, note, active, rank, seen_at, data, owner_id) values
    (${a.id}, 'first', null, true, 3, '${seenAt.toISOString()}', '{"tags":["x"]}', ${ada.id}),
    (${a.id}, 'second', 'hello', false, 1, null, null, null),
    (${a.id}, 'third', 'hello', true, 2, null, '{"tags":[]}', ${ada.id}),
    (${b.id}, 'first', 'other org', true, 9, null, null, null)`);

  const stock = await MikroORM.init({ ...quad.orm.config.getAll(), driver: PostgreSqlDriver, entityManager: EntityManager });
  t.teardown(() => stock.close());
  const driver = quad.orm.em.getDriver() as QuadPostgreSqlDriver;
  t.ok(driver instanceof QuadPostgreSqlDriver, 'Quad\'s ORM runs the prepared-find driver');
  t.ok(forkFor(quad.orm, a.id) instanceof QuadEntityManager, 'and its EntityManager');
  t.notOk(stock.em.fork() instanceof QuadEntityManager, 'the stock ORM runs MikroORM\'s');

  const both = async (run: (em: EntityManager) => Promise<unknown>, orgId = a.id) => {
    const before = driver.preparedFinds;
    const shortBefore = QuadEntityManager.shortPathFinds;
    const ours = await run(forkFor(quad.orm, orgId));
    const prepared = driver.preparedFinds - before;
    const short = QuadEntityManager.shortPathFinds - shortBefore;
    const stockEm = stock.em.fork();
    stockEm.setFilterParams('org', { orgId });
    const theirs = await run(stockEm);
    return { ours: plain(ours), theirs: plain(theirs), prepared, short };
  };
  const same = async (t: Test, name: string, run: (em: EntityManager) => Promise<unknown>, expectPrepared: boolean, orgId?: number) => {
    const r = await both(run, orgId);
    t.same(r.ours, r.theirs, `${name}: the same answer as MikroORM's query builder`);
    t.equal(r.prepared > 0, expectPrepared, `${name}: ${expectPrepared ? 'a prepared statement' : 'MikroORM\'s own path'}`);
    return r.ours;
  };

  t.test('simple finds take the prepared path and answer the same', async (t) => {
    t.match(await same(t, 'findOne by a string', (em) => em.findOne(Probe, { label: 'first' }), true), { label: 'first', rank: 3, note: null, active: true, seenAt, data: { tags: ['x'] } });
    await same(t, 'findOne by primary key', async (em) => em.findOne(Probe, (await em.findOneOrFail(Probe, { label: 'second' })).id), true);
    await same(t, 'a null condition', (em) => em.find(Probe, { note: null }), true);
    await same(t, 'a boolean and a number', (em) => em.find(Probe, { active: true, rank: 2 }), true);
    await same(t, 'a date', (em) => em.find(Probe, { seenAt }), true);
    await same(t, 'a relation by its id', (em) => em.find(Probe, { owner: ada.id }, { orderBy: { rank: 'desc' } }), true);
    const ordered = await same(t, 'order, limit and offset', (em) => em.find(Probe, {}, { orderBy: [{ note: 'asc nulls first' }, { id: -1 }], limit: 2, offset: 1 }), true) as { label: string }[];
    t.same(ordered.map((p) => p.label), ['third', 'second'], 'ordered by note (nulls first), then id descending; the first skipped');
    t.same(await same(t, 'nothing found', (em) => em.findOne(Probe, { label: 'absent' }), true), null);
  });

  t.test('the org filter holds on the prepared path', async (t) => {
    const inA = await same(t, 'org A by label', (em) => em.find(Probe, { label: 'first' }), true) as { note: string | null }[];
    t.same(inA.map((p) => p.note), [null], 'only org A\'s row');
    const inB = await same(t, 'org B by label', (em) => em.find(Probe, { label: 'first' }), true, b.id) as { note: string }[];
    t.same(inB.map((p) => p.note), ['other org']);
    t.same(await same(t, 'naming org B from org A', (em) => em.find(Probe, { organization: b.id }), true), []);
    await t.rejects(quad.orm.em.fork().findOne(Probe, { label: 'first' }), /No arguments provided for filter 'org'/, 'no org bound still fails closed');
  });

  t.test('other finds fall back to MikroORM', async (t) => {
    await same(t, 'an operator', (em) => em.find(Probe, { rank: { $gt: 1 } }, { orderBy: { id: 'asc' } }), false);
    await same(t, '$in', (em) => em.find(Probe, { label: { $in: ['first', 'third'] } }, { orderBy: { id: 'asc' } }), false);
    await same(t, 'a populated relation', (em) => em.find(Probe, { label: 'first' }, { populate: ['owner'] }), false);
    await same(t, 'chosen fields', (em) => em.find(Probe, { label: 'first' }, { fields: ['label'] }), false);
    await same(t, 'a pessimistic lock', (em) => em.transactional((tem) => tem.findOne(Probe, { label: 'first' }, { lockMode: LockMode.PESSIMISTIC_WRITE })), false);
  });

  t.test('findOne\'s short path answers what MikroORM\'s findOne answers', async (t) => {
    const short = async (name: string, run: (em: EntityManager) => Promise<unknown>, expectShort: boolean, orgId?: number) => {
      const r = await both(run, orgId);
      t.same(r.ours, r.theirs, `${name}: the same answer as MikroORM's findOne`);
      t.equal(r.short > 0, expectShort, `${name}: ${expectShort ? 'the short path' : 'MikroORM\'s findOne'}`);
      return r.ours;
    };
    t.match(await short('by a column', (em) => em.findOne(Probe, { label: 'first' }), true), { label: 'first', rank: 3, seenAt, data: { tags: ['x'] } });
    t.match(await short('in the other org', (em) => em.findOne(Probe, { label: 'first' }), true, b.id), { note: 'other org' }, 'the org filter applies');
    t.equal(await short('another org\'s row by its id', async (em) => em.findOne(Probe, (await forkFor(quad.orm, b.id).findOneOrFail(Probe, { label: 'first' })).id), true), null);
    await short('with an order', (em) => em.findOne(Probe, { note: 'hello' }, { orderBy: { rank: 'desc' } }), true);
    await short('with an operator (MikroORM\'s query builder below)', (em) => em.findOne(Probe, { rank: { $gte: 2 } }, { orderBy: { rank: 'asc' } }), true);
    t.equal(await short('nothing found', (em) => em.findOne(Probe, { label: 'absent' }), true), null);
    t.equal(await short('findOneOrFail', async (em) => (await em.findOneOrFail(Probe, { label: 'third' })).label, true), 'third');
    // A pending new row of the entity is flushed before the read (MikroORM's auto-flush), inside the transaction.
    const pending = async (em: EntityManager) => {
      let found: string | undefined;
      await em.transactional(async (tem) => {
        tem.create(Probe, { organization: a.id, label: 'pending' });
        found = (await tem.findOne(Probe, { label: 'pending' }))?.label;
        throw new Error('roll back');
      }).catch(() => {});
      return found;
    };
    t.equal(await short('a pending row of the entity', pending, true), 'pending');
    await short('a populated relation', (em) => em.findOne(Probe, { label: 'first' }, { populate: ['owner'] }), false);
    await short('chosen fields', (em) => em.findOne(Probe, { label: 'first' }, { fields: ['label'] }), false);
    await short('the filters turned off', (em) => em.findOne(Probe, { label: 'first', organization: b.id }, { filters: false }), false);
    await short('refresh', (em) => em.findOne(Probe, { label: 'first' }, { refresh: true }), false);
  });

  t.test('the entities are managed as usual', async (t) => {
    const em = forkFor(quad.orm, a.id);
    const found = await em.findOneOrFail(Probe, { label: 'second' });
    t.equal(await em.findOne(Probe, { rank: 1 }), found, 'the identity map gives the same instance');
    found.note = 'changed';
    await em.flush();
    t.equal((await forkFor(quad.orm, a.id).findOneOrFail(Probe, { label: 'second' })).note, 'changed', 'a change to a found entity is flushed');
    const owner = (await em.findOneOrFail(Probe, { label: 'first' })).owner!;
    t.equal(owner.id, ada.id, 'a relation is a reference to its row');
  });

  t.test('inside a transaction the find sees its own writes', async (t) => {
    const em = forkFor(quad.orm, a.id);
    await t.rejects(em.transactional(async (tem) => {
      tem.create(Probe, { organization: a.id, label: 'uncommitted' });
      await tem.flush();
      const before = driver.preparedFinds;
      t.ok(await tem.findOne(Probe, { label: 'uncommitted' }), 'found on the transaction\'s connection');
      t.equal(driver.preparedFinds, before + 1);
      throw new Error('roll back');
    }), /roll back/);
    t.equal(await forkFor(quad.orm, a.id).findOne(Probe, { label: 'uncommitted' }), null, 'rolled back');
  });

  t.test('a column added while prepared statements exist', async (t) => {
    const em = forkFor(quad.orm, a.id);
    await em.findOne(Probe, { label: 'third' });
    await sql.execute('alter table probes_items add column added_later text');
    t.match(await forkFor(quad.orm, a.id).findOne(Probe, { label: 'third' }), { label: 'third' }, 'the statement names its columns, so it still runs');
  });
});

/** Entities as plain data (relations as their ids), for comparing two ORMs' answers. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object' && '__helper' in (value as object)) return wrap(value as object).toObject();
  return value;
}
