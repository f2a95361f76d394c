// Guardrail: every SQL text under plugins/ and core/src that names an org table goes through the org-bound handle
// (README "Org isolation"). Code not yet moved onto it is listed in org-sql-baseline.json with how many such texts
// each file holds: a file may only go down (then lower its number, or drop it from the list once it reaches zero),
// and a file not listed may hold none. So no new code adds SQL beside the handle while the rest is moved.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { importPlugin, Registry } from '../../core/src/modules/registry.js';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { declaredTables } from '../../core/src/db/tenancy.js';
import { scanOrgSql, tablePattern } from '../support/org-sql-scan.js';
import { PLUGINS } from './world.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const baseline: Record<string, number> = JSON.parse(readFileSync(new URL('./org-sql-baseline.json', import.meta.url), 'utf8'));
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

t.test('no SQL names an org table beside the org-bound handle, past the baseline', async (t) => {
  const found = scanOrgSql(ROOT, ['plugins', 'core/src'], orgTables);
  const counts = new Map<string, number>();
  for (const f of found) counts.set(f.file, (counts.get(f.file) ?? 0) + 1);
  for (const [file, count] of counts) {
    const allowed = baseline[file] ?? 0;
    const lines = found.filter((f) => f.file === file).map((f) => `${f.line} (${f.table})`).join(', ');
    t.ok(count <= allowed, `${file}: ${count} SQL text${count === 1 ? '' : 's'} naming an org table outside db.sql/one/run (allowed ${allowed}): lines ${lines}`);
  }
  for (const [file, allowed] of Object.entries(baseline)) {
    const count = counts.get(file) ?? 0;
    t.ok(count >= allowed, `${file}: down to ${count} from ${allowed}: lower its number in org-sql-baseline.json${count === 0 ? ' (drop the line)' : ''}`);
  }
  t.comment(`${found.length} SQL texts in ${counts.size} files still name org tables beside the handle`);
});
