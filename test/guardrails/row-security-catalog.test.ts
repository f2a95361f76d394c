// Guardrail: the policy catalog. In a database migrated for the core, every plugin an operator gets and the example
// a third party copies, every table with an organization_id column is declared by a module, and every one declared
// `org` or `shared` has row-level security enabled and forced with the policies the core makes: one per command
// (select, insert, update, delete) comparing organization_id with the bound org (a select also showing the rows a
// declared `public` column flags, to a bound org; writes never), and the owner's. A table a module forgets to
// declare, a policy dropped by hand or a migration that turns row-level security off fails here.
import t from 'tap';
import pg from 'pg';
import { createTestDatabase } from '@quad/core/testing';
import { importPlugin, Registry } from '../../core/src/modules/registry.js';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { POLICY_COMMANDS, tableDeclarations } from '../../core/src/db/tenancy.js';
import { PLUGINS } from './world.js';

const modules = new Registry([...CORE_MODULES, ...await Promise.all(PLUGINS.map((spec) => importPlugin(spec)))]).modules;
const db = await createTestDatabase(modules);
t.teardown(() => db.drop());
const client = new pg.Client({ connectionString: db.url });
await client.connect();
t.teardown(() => client.end());

interface TableRow { table: string; has_org: boolean; enabled: boolean; forced: boolean }
interface PolicyRow { table: string; name: string; command: string; roles: string[]; using: string | null; check: string | null }

const { rows: tables } = await client.query<TableRow>(`
  select c.relname as table, c.relrowsecurity as enabled, c.relforcerowsecurity as forced,
         exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'organization_id' and not a.attisdropped) as has_org
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = 'public' and c.relkind in ('r', 'p') order by 1`);
const { rows: policies } = await client.query<PolicyRow>(`
  select tablename as table, policyname as name, lower(cmd) as command, roles::text[] as roles, qual as using, with_check as check
  from pg_policies where schemaname = 'public'`);
const declarations = tableDeclarations(modules);
const declared = new Map([...declarations].map(([table, d]) => [table, d.tenancy]));
const policiesOf = (table: string) => new Map(policies.filter((p) => p.table === table).map((p) => [p.name, p]));

t.test('every table with an organization_id column is declared, and none is declared global', async (t) => {
  const undeclared = tables.filter((r) => r.has_org && !declared.has(r.table)).map((r) => r.table);
  t.same(undeclared, [], 'declared by a module');
  const global = tables.filter((r) => r.has_org && declared.get(r.table) === 'global').map((r) => r.table);
  t.same(global, [], 'an org column means org or shared rows');
  t.ok(tables.filter((r) => r.has_org).length >= 50, `the catalog holds the plugins' tables (${tables.length} tables)`);
});

t.test('every org and shared table: row-level security forced, one policy per command on the bound org, and the owner\'s', async (t) => {
  for (const row of tables.filter((r) => r.has_org)) {
    const tenancy = declared.get(row.table);
    const own = policiesOf(row.table);
    const problems: string[] = [];
    if (!row.enabled) problems.push('row-level security is not enabled');
    if (!row.forced) problems.push('row-level security is not forced');
    for (const command of POLICY_COMMANDS) {
      const policy = own.get(`quad_${command}`);
      if (!policy) { problems.push(`no quad_${command} policy`); continue; }
      if (policy.command !== command) problems.push(`quad_${command} is for ${policy.command}`);
      if (policy.roles.join() !== 'public') problems.push(`quad_${command} is for ${policy.roles.join()}, not every role`);
      const expression = command === 'insert' ? policy.check : policy.using;
      if (!/organization_id = \(NULLIF\(current_setting\('quad\.org_id'::text, true\), ''::text\)\)::integer/i.test(expression ?? '')) {
        problems.push(`quad_${command} does not compare organization_id with the bound org: ${expression}`);
      }
      if (command === 'update' && policy.check !== policy.using) problems.push('quad_update lets a row move to another org');
      if (command === 'select' && tenancy === 'org' && /organization_id IS NULL/i.test(expression ?? '')) problems.push('an org table shows rows of no org');
      problems.push(...publicRowProblems(declarations.get(row.table)?.public ?? null, command, policy));
    }
    const owner = own.get('quad_owner');
    if (!owner || owner.roles.includes('public')) problems.push('the owner\'s policy is missing or for every role');
    const extra = [...own.keys()].filter((name) => !name.startsWith('quad_'));
    if (extra.length) problems.push(`policies the core does not make: ${extra.join(', ')}`);
    t.same(problems, [], `${row.table} (${tenancy})`);
  }
});

/** A select shows the rows a declared `public` column flags only to a bound org; no other command names it. */
function publicRowProblems(column: string | null, command: string, policy: PolicyRow): string[] {
  const names = (expression: string | null) => column !== null && new RegExp(`\\b${column}\\b`).test(expression ?? '');
  if (command !== 'select') return names(policy.using) || names(policy.check) ? [`quad_${command} names the public column ${column}`] : [];
  if (column === null) return [];
  const flagged = new RegExp(`OR \\(${column} AND \\(\\(NULLIF\\(current_setting\\('quad\\.org_id'::text, true\\), ''::text\\)\\)::integer IS NOT NULL\\)\\)`, 'i');
  return flagged.test(policy.using ?? '') ? [] : [`quad_select does not show the rows ${column} flags to a bound org (only): ${policy.using}`];
}
