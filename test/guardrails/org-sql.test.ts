// Guardrail: every SQL text under plugins/ and core/src that names an org table goes through the org-bound handle,
// the cross-org path or a `sql` fragment, whose values are always bound (README "Org isolation"): none is a plain
// string or template whose org condition someone wrote by hand.
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { importPlugin, Registry } from '../../core/src/modules/registry.js';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { declaredTables } from '../../core/src/db/tenancy.js';
import { scanOrgSql, tablePattern } from '../support/org-sql-scan.js';
import { PLUGINS } from './world.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const modules = new Registry([...CORE_MODULES, ...await Promise.all(PLUGINS.map((spec) => importPlugin(spec)))]).modules;
const orgTables = [...declaredTables(modules)].filter(([, tenancy]) => tenancy !== 'global').map(([table]) => table);

t.test('the scan finds what it must and passes over what goes through the handle', async (t) => {
  const pattern = tablePattern(['uptime_monitors', 'uptime_checks']);
  t.ok(pattern.test('select * from uptime_monitors where id = ?'));
  t.ok(pattern.test('insert into "uptime_checks" (a) values (1)'));
  t.ok(pattern.test('UPDATE uptime_monitors set paused = true'));
  t.notOk(pattern.test('select * from uptime_monitors_archive'), 'a longer name is another table');
  t.notOk(pattern.test('the uptime_monitors table'), 'a mere mention is no statement');
});

t.test('no SQL names an org table beside the org-bound handle', async (t) => {
  const found = scanOrgSql(ROOT, ['plugins', 'core/src'], orgTables);
  t.same(found.map((f) => `${f.file}:${f.line} (${f.table})`), [], 'SQL texts naming an org table outside sql`…` and db.sql/one/run');
  t.ok(orgTables.length > 40, 'the scan looked for every org and shared table');
});
