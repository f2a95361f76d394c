// Prints, per file, how many SQL texts name an org or shared table beside the org-bound handle (what the static
// guardrail counts), as the JSON of org-sql-baseline.json: `npx tsx test/support/org-sql-report.ts [folder…]`.
// Lower the baseline with it once code has moved onto the handle.
import { fileURLToPath } from 'node:url';
import { importPlugin, Registry } from '../../core/src/modules/registry.js';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { declaredTables } from '../../core/src/db/tenancy.js';
import { scanOrgSql } from './org-sql-scan.js';
import { PLUGINS } from '../guardrails/world.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const modules = new Registry([...CORE_MODULES, ...await Promise.all(PLUGINS.map((spec) => importPlugin(spec)))]).modules;
const tables = [...declaredTables(modules)].filter(([, tenancy]) => tenancy !== 'global').map(([table]) => table);
const roots = process.argv.slice(2);
const counts: Record<string, number> = {};
for (const { file } of scanOrgSql(ROOT, roots.length ? roots : ['plugins', 'core/src'], tables)) counts[file] = (counts[file] ?? 0) + 1;
console.log(JSON.stringify(Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b))), null, 2));
