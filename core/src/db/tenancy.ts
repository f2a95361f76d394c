// Row-level security from the manifests' `tables` (README "Org isolation"). An `org` table shows and accepts only
// the rows of the org its transaction is bound to (org-binding.ts); with no org bound it shows none and accepts
// none but rows of no org (where its organization_id may be null: the audit, error and job-run logs). A `shared`
// table also shows every org the rows of no org (pages the deployment crawls once for all), which only the cross-org
// path writes. A table declared with a `public` column also shows every bound org the rows that column flags (an
// org's published sources), which only their own org writes. A `global` table has no policy. The policies are
// forced, so they hold for the tables' owner too, which gets one more policy that lets it see every row: the owner
// runs the migrations (data fixes included) and, until the service connects as a role of its own, is the role the
// service runs as. A superuser or a BYPASSRLS role passes every policy, which is why the service must not run as one.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Module, TableDeclaration, TableTenancy } from '../modules/types.js';
import { BOUND_ORG_SQL } from './org-binding.js';

type Client = Pick<pg.ClientBase, 'query'>;

/** The four commands every protected table has a policy for, each named `quad_<command>`. */
export const POLICY_COMMANDS = ['select', 'insert', 'update', 'delete'] as const;
type Command = (typeof POLICY_COMMANDS)[number];

const OWN_ROW = `organization_id = ${BOUND_ORG_SQL}`;

/** A declared table, normalised: its tenancy, and the boolean column whose rows every org reads (or null). */
export interface DeclaredTable { tenancy: TableTenancy; public: string | null }

/** The one place a manifest's `tables` value is read. */
export function declaration(value: TableDeclaration): DeclaredTable {
  return typeof value === 'string' ? { tenancy: value, public: null } : { tenancy: value.tenancy, public: value.public };
}

/** What a bound org reads: its rows, rows of no org in a shared table, and (with an org bound) the flagged rows. */
function visibleRows({ tenancy, public: flag }: DeclaredTable): string {
  const visible = tenancy === 'shared' ? `(organization_id is null or ${OWN_ROW})` : OWN_ROW;
  return flag ? `(${visible} or (${quoteIdent(flag)} and ${BOUND_ORG_SQL} is not null))` : visible;
}

/** The `using` and `with check` expressions of a table's policy for one command (as the catalog prints them back
 *  is PostgreSQL's business: only our own statements are compared, see applyTenancy). Public rows widen the
 *  select alone: writes stay the org's own rows. */
function policy(declared: DeclaredTable, command: Command): { using?: string; check?: string } {
  const { tenancy } = declared;
  switch (command) {
    case 'select': return { using: visibleRows(declared) };
    // A row of no org (a superadmin's audit row, an error before its org was known) may be written in any unit of
    // work, in its transaction; only the cross-org path reads it. Never into a shared table: every org reads those.
    case 'insert': return { check: tenancy === 'org' ? `(${OWN_ROW} or organization_id is null)` : OWN_ROW };
    case 'update': return { using: OWN_ROW, check: OWN_ROW };
    case 'delete': return { using: OWN_ROW };
  }
}

/** The policies of a protected table: the four of its tenancy, and the owner's. */
export const POLICY_NAMES = [...POLICY_COMMANDS.map((c) => `quad_${c}`), 'quad_owner'];

/**
 * The statements that put a table under its tenancy's policies, each policy dropped and made again and marked
 * with the table's version (its comment), so that a later start sees it is up to date. `owner`: the role that owns
 * the tables.
 */
function tenancyStatements(table: string, declared: DeclaredTable, owner: string): string[] {
  const made = policyStatements(table, declared, owner);
  if (!made.length) return [];
  const version = versionOf(made);
  const name = quoteIdent(table);
  return [...made, ...POLICY_NAMES.map((policyName) => `comment on policy ${policyName} on ${name} is '${version}'`)];
}

function policyStatements(table: string, declared: DeclaredTable, owner: string): string[] {
  const name = quoteIdent(table);
  if (declared.tenancy === 'global') return [];
  const made = (policyName: string, body: string) => [`drop policy if exists ${policyName} on ${name}`, `create policy ${policyName} on ${name} ${body}`];
  return [
    `alter table ${name} enable row level security`,
    `alter table ${name} force row level security`,
    ...POLICY_COMMANDS.flatMap((command) => {
      const { using, check } = policy(declared, command);
      return made(`quad_${command}`, `for ${command}${using ? ` using (${using})` : ''}${check ? ` with check (${check})` : ''}`);
    }),
    ...made('quad_owner', `for all to ${quoteIdent(owner, 'role')} using (true) with check (true)`),
  ];
}

const versionOf = (statements: string[]) => `quad:${createHash('sha256').update(statements.join(';\n')).digest('hex').slice(0, 16)}`;

/** What a table's policies' comments say when they are this core's: a digest of the statements that make them. */
export function tenancyVersion(table: string, declared: DeclaredTable, owner: string): string | null {
  const made = policyStatements(table, declared, owner);
  return made.length ? versionOf(made) : null;
}

/** Every declared table, normalised, over the given modules (the core's included). */
export function tableDeclarations(modules: readonly Module[]): Map<string, DeclaredTable> {
  const tables = new Map<string, DeclaredTable>();
  for (const mod of modules) for (const [table, value] of Object.entries(mod.tables)) tables.set(table, declaration(value));
  return tables;
}

/** Every declared table and its tenancy, over the given modules (the core's included). */
export function declaredTables(modules: readonly Module[]): Map<string, TableTenancy> {
  return new Map([...tableDeclarations(modules)].map(([table, { tenancy }]) => [table, tenancy]));
}

/**
 * What is wrong with the declared tables in the database: a declared table that does not exist, an `org` or
 * `shared` table without an organization_id column, and a `public` column that is not a boolean column of its
 * table. Empty when all is well. Boot refuses to serve otherwise.
 */
export async function tenancyProblems(client: Client, modules: readonly Module[]): Promise<string[]> {
  const { rows } = await client.query<{ table: string; has_org: boolean; booleans: string[] }>(`
    select c.relname as table, exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'organization_id' and not a.attisdropped) as has_org,
      array(select a.attname::text from pg_attribute a where a.attrelid = c.oid and a.atttypid = 'boolean'::regtype and a.attnum > 0 and not a.attisdropped) as booleans
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p')`);
  const found = new Map(rows.map((r) => [r.table, r]));
  const problems: string[] = [];
  for (const mod of modules) {
    for (const [table, value] of Object.entries(mod.tables)) {
      const { tenancy, public: flag } = declaration(value);
      const row = found.get(table);
      const problem = (what: string) => problems.push(`Plugin "${mod.name}": tables.${table}: ${what}`);
      if (!row) problem('no such table after the migrations');
      else if (tenancy !== 'global' && !row.has_org) problem(`an ${tenancy} table needs an organization_id column (or declare it global)`);
      else if (flag && !row.booleans.includes(flag)) problem(`public: "${flag}" is not a boolean column of the table`);
    }
  }
  return problems;
}

/**
 * Put every declared `org` and `shared` table under its policies, in one transaction; tables whose policies are
 * already this core's (forced, all five there, each marked with this version) are left alone, so a start takes no
 * lock on them. Answers the tables it changed. Run by the tables' owner (the migrations' connection).
 */
export async function applyTenancy(client: Client, modules: readonly Module[]): Promise<string[]> {
  const { rows: [{ owner }] } = await client.query<{ owner: string }>('select current_user as owner');
  const wanted = [...tableDeclarations(modules)].flatMap(([table, declared]) => {
    const version = tenancyVersion(table, declared, owner!);
    return version ? [{ table, declared, version }] : [];
  });
  if (!wanted.length) return [];
  const { rows: current } = await client.query<{ table: string; version: string }>(`
    select c.relname as table, min(obj_description(p.oid, 'pg_policy')) as version
    from pg_class c join pg_namespace n on n.oid = c.relnamespace join pg_policy p on p.polrelid = c.oid
    where n.nspname = current_schema() and c.relname = any($1) and c.relrowsecurity and c.relforcerowsecurity and p.polname = any($2)
    group by c.relname
    having count(*) = $3 and count(distinct obj_description(p.oid, 'pg_policy')) = 1`,
  [wanted.map((w) => w.table), POLICY_NAMES, POLICY_NAMES.length]);
  const found = new Map(current.map((r) => [r.table, r.version]));
  const stale = wanted.filter((w) => found.get(w.table) !== w.version);
  if (!stale.length) return [];
  await client.query('begin');
  try {
    for (const { table, declared } of stale) for (const statement of tenancyStatements(table, declared, owner!)) await client.query(statement);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback');
    throw err;
  }
  return stale.map((w) => w.table);
}

/** A table, column or role name as an identifier (the manifest schema allows only lower-case letters, digits and
 *  underscores in table and column names; a role name is PostgreSQL's, quoted with its quotes doubled). */
function quoteIdent(name: string, kind: 'table' | 'role' = 'table'): string {
  if (kind === 'role') return `"${name.replace(/"/g, '""')}"`;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a table or column name: ${JSON.stringify(name)}`);
  return `"${name}"`;
}
