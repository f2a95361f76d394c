// Migrations: applied once, in dependency order, and an edited migration that already ran stops the run.
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import pg from 'pg';
import { defineModule } from '@quad/core';
import { ADMIN_URL, databaseUrl } from '@quad/core/testing';
import { migrate } from '../core/src/db/migrator.js';
import { Registry } from '../core/src/modules/registry.js';
import { CORE_MODULES } from '../core/src/modules/load.js';

async function freshDatabase(t: Test): Promise<string> {
  const name = `quad_migr_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  t.teardown(async () => {
    const c = new pg.Client({ connectionString: ADMIN_URL });
    await c.connect();
    await c.query(`drop database if exists "${name}" with (force)`);
    await c.end();
  });
  return databaseUrl(name);
}

t.test('applies each module after the modules it needs, once', async (t) => {
  const url = await freshDatabase(t);
  const dir = (sql: Record<string, string>) => {
    const d = mkdtempSync(join(tmpdir(), 'quad-mig-'));
    for (const [f, body] of Object.entries(sql)) writeFileSync(join(d, f), body);
    return d;
  };
  // "store" is listed first but needs "points": its foreign key only works if points' table exists first.
  const store = defineModule({ name: 'store', title: 'S', description: 'd', category: 'c', needs: [{ key: 'points', label: 'Points', kind: 'module' }],
    tables: { store_orders: 'global' },
    migrations: dir({ '0001_orders.sql': 'create table store_orders (id serial primary key, pts integer references points_rows (id));' }) });
  const points = defineModule({ name: 'points', title: 'P', description: 'd', category: 'c', tables: { points_rows: 'global' },
    migrations: dir({ '0001_rows.sql': 'create table points_rows (id serial primary key);', '0002_more.sql': 'alter table points_rows add column amount integer;' }) });
  const registry = new Registry([...CORE_MODULES, store, points]);
  const first = await migrate(url, registry.modules);
  t.ok(first.applied.indexOf('core/0001_core.sql') === 0, 'core first');
  t.same(first.applied.filter((m) => !m.startsWith('core/')), ['points/0001_rows.sql', 'points/0002_more.sql', 'store/0001_orders.sql']);
  const again = await migrate(url, registry.modules);
  t.same(again.applied, [], 'nothing is applied twice');

  const edited = mkdtempSync(join(tmpdir(), 'quad-mig-'));
  cpSync(points.migrations as string, edited, { recursive: true });
  writeFileSync(join(edited, '0002_more.sql'), 'alter table points_rows add column amount bigint;');
  const changed = defineModule({ ...points, migrations: edited });
  await t.rejects(migrate(url, new Registry([...CORE_MODULES, store, changed]).modules), {
    message: 'Migration points/0002_more.sql was changed after it was applied; add a new migration instead',
  });
});

t.test('a failing migration is rolled back whole and named', async (t) => {
  const url = await freshDatabase(t);
  const d = mkdtempSync(join(tmpdir(), 'quad-mig-'));
  writeFileSync(join(d, '0001_bad.sql'), 'create table bad_half_done (id int); select no_such_function();');
  const bad = defineModule({ name: 'bad', title: 'B', description: 'd', category: 'c', tables: { bad_half_done: 'global' }, migrations: d });
  await t.rejects(migrate(url, new Registry([...CORE_MODULES, bad]).modules), { message: /^Migration bad\/0001_bad\.sql failed: function no_such_function\(\) does not exist/ });
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const tables = await c.query("select count(*)::int as n from information_schema.tables where table_name = 'bad_half_done'");
  const recorded = await c.query("select count(*)::int as n from quad_migrations where module = 'bad'");
  await c.end();
  t.equal(tables.rows[0].n, 0, 'no half-applied migration');
  t.equal(recorded.rows[0].n, 0);
});

t.test('after the migrations, every declared table exists, an org table has its organization_id and a public column is a boolean', async (t) => {
  const url = await freshDatabase(t);
  const d = mkdtempSync(join(tmpdir(), 'quad-mig-'));
  writeFileSync(join(d, '0001_loose.sql'), `create table loose_rows (id int); create table loose_log (id int, organization_id int);
    create table loose_pages (id int, organization_id int, public boolean, shown text); create table loose_notes (id int, organization_id int);`);
  const loose = defineModule({ name: 'loose', title: 'L', description: 'd', category: 'c', migrations: d,
    tables: {
      loose_rows: 'org', loose_log: 'shared', loose_gone: 'global',
      loose_pages: { tenancy: 'org', public: 'shown' }, loose_notes: { tenancy: 'shared', public: 'public' },
    } });
  await t.rejects(migrate(url, new Registry([...CORE_MODULES, loose]).modules), {
    message: 'The manifests\' tables do not match the database:\n'
      + 'Plugin "loose": tables.loose_rows: an org table needs an organization_id column (or declare it global)\n'
      + 'Plugin "loose": tables.loose_gone: no such table after the migrations\n'
      + 'Plugin "loose": tables.loose_pages: public: "shown" is not a boolean column of the table\n'
      + 'Plugin "loose": tables.loose_notes: public: "public" is not a boolean column of the table',
  });
});
