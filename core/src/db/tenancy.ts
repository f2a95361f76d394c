// Row-level security from the manifests' `tables` (README "Org isolation"). An `org` table shows and accepts only
// the rows of the org its transaction is bound to (org-binding.ts); with no org bound it shows none and accepts
// none. A `shared` table also shows every org the rows of no org (pages the deployment crawls once for all), which
// only the cross-org path writes. A `global` table has no policy. The policies are forced, so they hold for the
// tables' owner too; a superuser or a BYPASSRLS role still passes them, which is why the service never runs as one.
import type pg from 'pg';
import type { Module, TableTenancy } from '../modules/types.js';
import { BOUND_ORG_SQL } from './org-binding.js';

type Client = Pick<pg.ClientBase, 'query'>;

/** The four commands every protected table has a policy for, each named `quad_<command>`. */
export const POLICY_COMMANDS = ['select', 'insert', 'update', 'delete'] as const;
type Command = (typeof POLICY_COMMANDS)[number];

const OWN_ROW = `organization_id = ${BOUND_ORG_SQL}`;

/** The `using` and `with check` expressions of a table's policy for one command (as the catalog prints them back
 *  is PostgreSQL's business: only our own statements are compared, see applyTenancy). */
function policy(tenancy: Exclude<TableTenancy, 'global'>, command: Command): { using?: string; check?: string } {
  const visible = tenancy === 'shared' ? `(organization_id is null or ${OWN_ROW})` : OWN_ROW;
  switch (command) {
    case 'select': return { using: visible };
    case 'insert': return { check: OWN_ROW };
    case 'update': return { using: OWN_ROW, check: OWN_ROW };
    case 'delete': return { using: OWN_ROW };
  }
}

/** The statements that put a table under its tenancy's policies (idempotent: each policy is dropped and made). */
export function tenancyStatements(table: string, tenancy: TableTenancy): string[] {
  const name = quoteIdent(table);
  if (tenancy === 'global') return [];
  return [
    `alter table ${name} enable row level security`,
    `alter table ${name} force row level security`,
    ...POLICY_COMMANDS.flatMap((command) => {
      const { using, check } = policy(tenancy, command);
      return [
        `drop policy if exists quad_${command} on ${name}`,
        `create policy quad_${command} on ${name} for ${command}${using ? ` using (${using})` : ''}${check ? ` with check (${check})` : ''}`,
      ];
    }),
  ];
}

/** Every declared table and its tenancy, over the given modules (the core's included). */
export function declaredTables(modules: readonly Module[]): Map<string, TableTenancy> {
  const tables = new Map<string, TableTenancy>();
  for (const mod of modules) for (const [table, tenancy] of Object.entries(mod.tables)) tables.set(table, tenancy);
  return tables;
}

/**
 * What is wrong with the declared tables in the database: a declared table that does not exist, and an `org` or
 * `shared` table without an organization_id column. Empty when all is well. Boot refuses to serve otherwise.
 */
export async function tenancyProblems(client: Client, modules: readonly Module[]): Promise<string[]> {
  const { rows } = await client.query<{ table: string; has_org: boolean }>(`
    select c.relname as table, exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'organization_id' and not a.attisdropped) as has_org
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p')`);
  const found = new Map(rows.map((r) => [r.table, r.has_org]));
  const problems: string[] = [];
  for (const mod of modules) {
    for (const [table, tenancy] of Object.entries(mod.tables)) {
      const hasOrg = found.get(table);
      if (hasOrg === undefined) problems.push(`Plugin "${mod.name}": tables.${table}: no such table after the migrations`);
      else if (tenancy !== 'global' && !hasOrg) {
        problems.push(`Plugin "${mod.name}": tables.${table}: an ${tenancy} table needs an organization_id column (or declare it global)`);
      }
    }
  }
  return problems;
}

/** Put every declared table under its policies, in one transaction. */
export async function applyTenancy(client: Client, modules: readonly Module[]): Promise<void> {
  const statements = [...declaredTables(modules)].flatMap(([table, tenancy]) => tenancyStatements(table, tenancy));
  if (!statements.length) return;
  await client.query('begin');
  try {
    for (const statement of statements) await client.query(statement);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback');
    throw err;
  }
}

/** A table name as an identifier (the manifest schema allows only lower-case letters, digits and underscores). */
function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a table name: ${JSON.stringify(name)}`);
  return `"${name}"`;
}
