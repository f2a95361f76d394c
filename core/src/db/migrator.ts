// Applies SQL migrations: the core's, then each module's, in dependency order. One process at a time
// (advisory lock), one transaction per file, and an edited file that was already applied stops the run.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { runMigrations as runWorkerMigrations } from 'graphile-worker';
import type { Module } from '../modules/types.js';
import { createPool, endPool } from './pool.js';
import { applyTenancy, tenancyProblems } from './tenancy.js';
import { ensureServiceRole } from './service-role.js';

export interface MigrationFile { module: string; name: string; sql: string; checksum: string }

const LOCK_KEY = 7_361_002; // any constant shared by every Quad process

export function migrationDir(mod: Module): string | undefined {
  if (!mod.migrations) return undefined;
  return mod.migrations instanceof URL ? fileURLToPath(mod.migrations) : mod.migrations;
}

/** The migration files of the given modules, in the order they must run. */
export function listMigrations(modules: readonly Module[]): MigrationFile[] {
  const files: MigrationFile[] = [];
  for (const mod of modules) {
    const dir = migrationDir(mod);
    if (!dir) continue;
    if (!existsSync(dir)) throw new Error(`Plugin "${mod.name}": migrations: folder ${dir} does not exist`);
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()) {
      const sql = readFileSync(join(dir, name), 'utf8');
      files.push({ module: mod.name, name, sql, checksum: createHash('sha256').update(sql).digest('hex') });
    }
  }
  return files;
}

export interface MigrateResult { applied: string[]; extensions: Record<string, boolean> }

/**
 * Bring a database up to date. Optional extensions are created when the server has them;
 * the result says which exist, so modules can report themselves degraded.
 */
export async function migrate(
  connectionString: string, modules: readonly Module[], log: (msg: string) => void = () => {},
  /** The role the service will connect as (DATABASE_SERVICE_ROLE), made and given the tables' rows here. */
  options: { serviceRole?: string } = {},
): Promise<MigrateResult> {
  const files = listMigrations(modules);
  const wanted = [...new Set(modules.flatMap((m) => m.databaseExtensions.map((e) => e.name)))];
  const client = new pg.Client({ connectionString });
  await client.connect();
  const applied: string[] = [];
  const extensions: Record<string, boolean> = {};
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY]);
    for (const ext of wanted) extensions[ext] = await ensureExtension(client, ext);
    await client.query(`create table if not exists quad_migrations (
      module text not null, name text not null, checksum text not null,
      applied_at timestamptz not null default now(), primary key (module, name))`);
    const done = new Map<string, string>(
      (await client.query('select module, name, checksum from quad_migrations')).rows.map((r) => [`${r.module}/${r.name}`, r.checksum]),
    );
    for (const file of files) {
      const id = `${file.module}/${file.name}`;
      const previous = done.get(id);
      if (previous === file.checksum) continue;
      if (previous) throw new Error(`Migration ${id} was changed after it was applied; add a new migration instead`);
      await client.query('begin');
      try {
        await client.query(file.sql);
        await client.query('insert into quad_migrations (module, name, checksum) values ($1, $2, $3)', [file.module, file.name, file.checksum]);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw new Error(`Migration ${id} failed: ${(err as Error).message}`);
      }
      applied.push(id);
      log(`migrated ${id}`);
    }
    // The tables the manifests declare, against what the migrations made (README "Org isolation").
    const problems = await tenancyProblems(client, modules);
    if (problems.length) throw new Error(`The manifests' tables do not match the database:\n${problems.join('\n')}`);
    const secured = await applyTenancy(client, modules);
    if (secured.length) log(`row-level security applied to ${secured.length} table${secured.length === 1 ? '' : 's'}`);
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    await client.end();
  }
  // graphile-worker keeps its own schema and versions; it takes its own lock. Our own pool, ended here,
  // so no idle client outlives the migration.
  const pool = createPool(connectionString, 2);
  try {
    await runWorkerMigrations({ pgPool: pool });
  } finally {
    await endPool(pool);
  }
  if (options.serviceRole) await withLock(connectionString, (owner) => ensureServiceRole(owner, connectionString, options.serviceRole!));
  return { applied, extensions };
}

/** `work` on a connection of its own, holding the migrations' lock (grants made at once by two processes collide). */
async function withLock(connectionString: string, work: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY]);
    await work(client);
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    await client.end();
  }
}

/** Create an extension when the server offers it; report whether it is installed. */
async function ensureExtension(client: pg.Client, name: string): Promise<boolean> {
  const available = await client.query('select installed_version from pg_available_extensions where name = $1', [name]);
  if (!available.rowCount) return false;
  if (available.rows[0].installed_version) return true;
  try {
    await client.query(`create extension if not exists "${name.replace(/"/g, '')}"`);
    return true;
  } catch {
    return false; // not a superuser: the operator must create it once
  }
}

/**
 * Can the database do vector search: pgvector installed (`installed`, when a module wanted it and migrate created
 * it), else offered by the server. The reason, when not, is the caller's (e.g. the embedded database's) or a hint.
 */
export async function vectorStatus(connectionString: string, installed: boolean | undefined, reason?: string): Promise<{ available: boolean; reason: string | null }> {
  // Installed by migrate: nothing to ask (start-up opens no connection for it).
  if (installed) return { available: true, reason: null };
  const client = new pg.Client({ connectionString });
  await client.connect();
  let offered: boolean;
  try {
    offered = !!(await client.query("select 1 from pg_available_extensions where name = 'vector'")).rowCount;
  } finally {
    await client.end();
  }
  const available = installed ?? offered;
  if (available) return { available, reason: null };
  return {
    available,
    reason: reason ?? (offered
      ? 'pgvector is on the server but not in the database: create it once as a superuser (create extension vector)'
      : 'the PostgreSQL server has no pgvector extension: install it there (e.g. the postgresql-<version>-pgvector package)'),
  };
}

/** Which of the named extensions are installed in the database. */
export async function installedExtensions(connectionString: string, names: string[]): Promise<Record<string, boolean>> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const rows = (await client.query('select extname from pg_extension where extname = any($1)', [names])).rows;
    return Object.fromEntries(names.map((n) => [n, rows.some((r) => r.extname === n)]));
  } finally {
    await client.end();
  }
}
