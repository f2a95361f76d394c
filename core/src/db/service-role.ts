// The role the service's module code runs as (README "Org isolation"): one that owns no table and has neither
// superuser nor BYPASSRLS, so row-level security holds for everything it sends. DATABASE_URL stays the owner's: the
// migrations, the policies and the core's cross-org work (acrossOrgs, the job queue) run as it. With
// DATABASE_SERVICE_ROLE set, each migration run makes the role from DATABASE_URL (LOGIN, nothing else), gives it
// the rows of every table and nothing more, and the service connects as it with a password derived from the
// owner's, so every process of a deployment finds the same one and an operator keeps one URL.
import { createHmac } from 'node:crypto';
import type pg from 'pg';

type Client = Pick<pg.ClientBase, 'query'>;

/** The service role's password: derived from the owner's (none when the owner has none: trust or peer auth). */
export function servicePassword(ownerUrl: string, role: string): string {
  const owner = decodeURIComponent(new URL(ownerUrl).password);
  return owner ? createHmac('sha256', owner).update(`quad service role ${role}`).digest('base64url') : '';
}

/** DATABASE_URL with the service role's name and password in place of the owner's. */
export function serviceUrl(ownerUrl: string, role: string): string {
  const url = new URL(ownerUrl);
  url.username = encodeURIComponent(role);
  url.password = encodeURIComponent(servicePassword(ownerUrl, role));
  return url.toString();
}

const quoteRole = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** Schemas whose tables the service reads and writes: the modules' and graphile-worker's (its job queue). */
const SCHEMAS = ['public', 'graphile_worker'];

/** Another process changed the same catalog row (the role is the cluster's, the migrations' lock its database's). */
const concurrentCatalogUpdate = (err: unknown) => (err as { message?: string }).message === 'tuple concurrently updated';

/**
 * Make (or correct) the service role and give it the rows of every table of this database. Run by the owner, after
 * the migrations. Refuses, naming the fix, when the owner may not make roles. Processes of other databases of the
 * cluster may change the role at the same moment: a collision is tried again.
 */
export async function ensureServiceRole(client: Client, ownerUrl: string, role: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await makeServiceRole(client, ownerUrl, role);
    } catch (err) {
      if (attempt >= 5 || !concurrentCatalogUpdate(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt * Math.random()));
    }
  }
}

async function makeServiceRole(client: Client, ownerUrl: string, role: string): Promise<void> {
  const password = servicePassword(ownerUrl, role);
  const attributes = `login nosuperuser nobypassrls nocreatedb nocreaterole noinherit password ${password ? literal(password) : 'null'}`;
  const { rows: [me] } = await client.query<{ createrole: boolean; superuser: boolean }>(
    'select rolcreaterole as createrole, rolsuper as superuser from pg_roles where rolname = current_user');
  if (!me?.createrole && !me?.superuser) {
    throw new Error(`DATABASE_SERVICE_ROLE=${role}: the role of DATABASE_URL may not make or change roles; give it CREATEROLE `
      + '(or make the role yourself with LOGIN and the grants of README "Org isolation"), or unset DATABASE_SERVICE_ROLE');
  }
  const { rowCount } = await client.query('select 1 from pg_roles where rolname = $1', [role]);
  await client.query(`${rowCount ? 'alter' : 'create'} role ${quoteRole(role)} ${attributes}`).catch(async (err) => {
    // Another process made it at the same moment (roles are the cluster's): change it instead.
    if (rowCount || !['42710', '23505'].includes(err.code)) throw err;
    await client.query(`alter role ${quoteRole(role)} ${attributes}`);
  });
  const name = quoteRole(role);
  await client.query(`grant connect on database ${quoteRole((await client.query('select current_database() as d')).rows[0].d)} to ${name}`);
  for (const schema of SCHEMAS) {
    await client.query(`grant usage on schema ${schema} to ${name}`);
    await client.query(`grant select, insert, update, delete on all tables in schema ${schema} to ${name}`);
    await client.query(`grant usage, select, update on all sequences in schema ${schema} to ${name}`);
  }
  // The job queue's functions (add_job and the rest), which its migrations may keep from PUBLIC. The functions in
  // public (ours, and extensions' such as pgvector's) are PUBLIC's to execute already.
  await client.query(`grant execute on all functions in schema graphile_worker to ${name}`);
  // The job queue keeps its tables private with row-level security and no policy (only their owner passes). A run
  // is enqueued in the caller's transaction (startJob: add_job beside the job_runs row), so the service role gets
  // the queue's rows: they are the core's, not an org's (README "Org isolation").
  const { rows: queue } = await client.query<{ table: string }>(
    `select c.oid::regclass::text as table from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'graphile_worker' and c.relkind = 'r' and c.relrowsecurity
       and not exists (select 1 from pg_policy p where p.polrelid = c.oid and p.polname = $1)`, [JOB_QUEUE_POLICY]);
  for (const { table } of queue) {
    await client.query(`create policy ${JOB_QUEUE_POLICY} on ${table} for all to ${name} using (true) with check (true)`);
  }
}

/** The policy that gives the service role the job queue's rows. */
const JOB_QUEUE_POLICY = 'quad_service_job_queue';

/** The role a connection runs as, when it would pass every policy: a superuser or a BYPASSRLS role; else null. */
export async function bypassingRole(client: Client): Promise<string | null> {
  const { rows: [row] } = await client.query<{ name: string; bypasses: boolean }>(
    'select rolname as name, rolsuper or rolbypassrls as bypasses from pg_roles where rolname = current_user');
  return row?.bypasses ? row.name : null;
}
