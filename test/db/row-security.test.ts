// Row-level security behind the org binding: as a role that owns no table and bypasses nothing, every path a
// module's code has to the database (the org-bound handle, the EntityManager's finds, raw statements, flushes,
// explicit transactions, forks, a tool call's deferred transaction) sees and changes only the bound org's rows,
// even where the code names no org or names another; with no org bound it sees none and writes none. A row of a
// table declared with a `public` column is read by every bound org when flagged, and written only by its own.
import t from 'tap';
import pg from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import { defineModule, orgDb } from '@quad/core';
import { createTestDatabase } from '@quad/core/testing';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { Registry } from '../../core/src/modules/registry.js';
import { applyTenancy } from '../../core/src/db/tenancy.js';
import { forkFor, openOrm, poolClient } from '../../core/src/db/orm.js';
import { DeferredTransaction } from '../../core/src/db/deferred-transaction.js';
import sample, { SampleItem } from '../fixtures/sample-module.js';

const ROLE = 'quad_rls_probe';
const modules = new Registry([...CORE_MODULES, sample]).modules;
const db = await createTestDatabase(modules);
t.teardown(() => db.drop());

const admin = new pg.Client({ connectionString: db.url });
await admin.connect();
t.teardown(() => admin.end());
// A table whose rows flagged `public` every org reads (README "Org isolation"), put under its policies with the rest.
const notes = defineModule({ name: 'notes', title: 'Notes', description: 'Public rows', category: 'Tests', tables: { notes: { tenancy: 'org', public: 'public' } } });
await admin.query(`create table notes (id serial primary key, organization_id integer not null references organizations (id),
  label text not null, public boolean not null default false)`);
await applyTenancy(admin, [...modules, notes]);
// The role is the cluster's: made once, by whichever test gets there first.
await admin.query(`create role ${ROLE} login nosuperuser nobypassrls`).catch((err) => {
  if (!['42710', '23505'].includes(err.code)) throw err;
});
await admin.query(`grant usage on schema public to ${ROLE}; grant select, insert, update, delete on all tables in schema public to ${ROLE};
  grant usage on all sequences in schema public to ${ROLE}`);
const { rows: orgs } = await admin.query<{ id: number }>(`insert into organizations (prefix, name) values ('aa', 'A'), ('bb', 'B') returning id`);
const [A, B] = orgs.map((o) => o.id) as [number, number];
await admin.query(`insert into sample_items (organization_id, label) values ($1, 'a1'), ($1, 'a2'), ($2, 'b1')`, [A, B]);
await admin.query(`insert into notes (organization_id, label, public) values ($1, 'a-private', false), ($2, 'b-public', true), ($2, 'b-private', false)`, [A, B]);

const url = new URL(db.url);
url.username = ROLE;
const orm = await openOrm({ url: url.toString(), modules, poolMax: 4 });
t.teardown(() => orm.close());

const labels = async (em: EntityManager) => (await orgDb(em).sql<{ label: string }>`select label from sample_items order by label`).map((r) => r.label);
const allLabels = async () => (await admin.query<{ label: string }>('select label from sample_items order by label')).rows.map((r) => r.label);
const refusedByPolicy = { code: '42501', message: /row-level security/ };

t.test('the org-bound handle sees and writes only its org, whatever the statement names', async (t) => {
  const em = forkFor(orm, A);
  const a = orgDb(em);
  t.same(await labels(em), ['a1', 'a2'], 'a select without an org condition');
  t.same(await a.sql`select label from sample_items where organization_id = ${B}`, [], 'a select of the other org');
  await t.rejects(a.sql`insert into sample_items (organization_id, label) values (${B}, 'forged')`, refusedByPolicy, 'an insert for the other org');
  t.equal(await a.run`update sample_items set label = label || '!'`, 2, 'an update of every row changes the org\'s two');
  await t.rejects(a.run`update sample_items set organization_id = ${B} where label = 'a1!'`, refusedByPolicy, 'a row moved to the other org');
  t.same(await allLabels(), ['a1!', 'a2!', 'b1'], 'the other org\'s row is untouched');
  const [b1] = (await admin.query<{ id: number }>(`select id from sample_items where label = 'b1'`)).rows;
  await t.rejects(a.sql`insert into sample_items (id, organization_id, label) values (${b1!.id}, ${A}, 'x')
                        on conflict (id) do update set label = 'taken'`, { code: /42501|23505/ }, 'an upsert onto the other org\'s row');
  t.equal(await a.run`delete from sample_items`, 2, 'a delete of every row deletes the org\'s two');
  t.same(await allLabels(), ['b1']);
  await admin.query(`insert into sample_items (organization_id, label) values ($1, 'a1'), ($1, 'a2')`, [A]);
});

t.test('the EntityManager: finds without the org filter, raw statements, flushes, transactions and forks', async (t) => {
  const em = forkFor(orm, A);
  t.same((await em.find(SampleItem, {}, { filters: false, orderBy: { label: 'asc' } })).map((i) => i.label), ['a1', 'a2'], 'a find with the filter off');
  t.same((await em.execute<{ label: string }[]>('select label from sample_items order by label')).map((r) => r.label), ['a1', 'a2'], 'em.execute');
  t.same(await labels(em.fork()), ['a1', 'a2'], 'a fork inherits the binding');
  await t.rejects(em.transactional(async (tem) => {
    await tem.execute('insert into sample_items (organization_id, label) values (?, ?)', [B, 'forged']);
  }), refusedByPolicy, 'a transaction writing the other org\'s row');
  await em.transactional(async (tem) => {
    tem.create(SampleItem, { organization: A, label: 'a3' });
    t.same(await labels(tem), ['a1', 'a2'], 'inside a transaction: the unflushed row is not there yet');
  });
  await em.begin();
  t.ok(em.isInTransaction(), 'em.begin() starts a transaction');
  await em.execute('delete from sample_items where label = ?', ['a3']);
  await em.commit();
  t.notOk(em.isInTransaction(), 'the binding alone is no transaction');
  t.same(await labels(em), ['a1', 'a2'], 'after commit, still bound');
  t.same(await allLabels(), ['a1', 'a2', 'b1']);
});

t.test('a tool call\'s deferred transaction is bound, its last statement too', async (t) => {
  const transaction = new DeferredTransaction(poolClient(orm), A);
  const em = transaction.enlist(forkFor(orm, A));
  t.same(await labels(em), ['a1', 'a2']);
  const [row] = await transaction.last<{ n: number }>({ name: 'rls_probe_count', text: 'select count(*)::int as n from sample_items', values: [] });
  t.equal(row!.n, 2);
  await transaction.commit();
  const alone = new DeferredTransaction(poolClient(orm), B);
  const [own] = await alone.last<{ n: number }>({ name: 'rls_probe_count', text: 'select count(*)::int as n from sample_items', values: [] });
  t.equal(own!.n, 1, 'a last statement with nothing begun runs bound on its own');
  await alone.commit();
});

t.test('with no org bound: no rows, no writes, and no binding left on a pooled connection', async (t) => {
  await labels(forkFor(orm, B)); // a bound statement first, on a pooled connection
  await t.rejects(orgDb(forkFor(orm, B)).sql`select 1 / 0`, { code: '22012' }, 'and a bound statement that fails: COMMIT still ends its transaction');
  const unbound = forkFor(orm);
  const rows = await unbound.execute<{ label: string; bound: string | null }[]>(
    `select (select count(*)::int from sample_items) as label, current_setting('quad.org_id', true) as bound`);
  t.equal(rows[0]!.label, 0 as never, 'no org rows');
  t.notOk(rows[0]!.bound, 'the connection carries no org');
  const [open] = await unbound.execute<{ in_transaction: boolean }[]>(`select now() <> statement_timestamp() as in_transaction`);
  t.equal(open!.in_transaction, false, 'nor an open transaction');
  await t.rejects(unbound.execute('insert into sample_items (organization_id, label) values (?, ?)', [A, 'x']), refusedByPolicy);
  t.throws(() => orgDb(unbound), /bound to an org/, 'no org-bound handle without an org');
});

t.test('a public row: every bound org reads it, only its own org writes it', async (t) => {
  const a = orgDb(forkFor(orm, A));
  const notesOf = async (db: ReturnType<typeof orgDb>) => (await db.sql<{ label: string }>`select label from notes order by label`).map((r) => r.label);
  t.same(await notesOf(a), ['a-private', 'b-public'], 'its own rows and the other org\'s public one, not its private one');
  t.equal(await a.run`update notes set label = 'taken' where label = 'b-public'`, 0, 'an update of the other org\'s public row changes nothing');
  t.equal(await a.run`delete from notes where label = 'b-public'`, 0, 'nor does a delete');
  await t.rejects(a.sql`insert into notes (organization_id, label, public) values (${B}, 'forged', true)`, refusedByPolicy, 'an insert of a public row for the other org');
  await t.rejects(a.run`update notes set organization_id = ${B}, public = true where label = 'a-private'`, refusedByPolicy, 'a row moved to the other org as public');
  const allNotes = (await admin.query<{ label: string }>('select label from notes order by label')).rows.map((r) => r.label);
  t.same(allNotes, ['a-private', 'b-private', 'b-public'], 'every row as it was');
  const [unbound] = await forkFor(orm).execute<{ n: number }[]>('select count(*)::int as n from notes');
  t.equal(unbound!.n, 0, 'with no org bound, not even the public row');
});
