// Test databases: one migrated template per set of migrations, cloned for every test file
// (CREATE DATABASE … TEMPLATE), so files run in parallel and never see each other's rows.
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { listMigrations, migrate } from '../db/migrator.js';
import { tableDeclarations, tenancyVersion } from '../db/tenancy.js';
import { Registry } from '../modules/registry.js';
import type { Module } from '../modules/types.js';

/** The suite's own server, which `npm test` starts (.ci/setup-postgres.sh), or TEST_DATABASE_URL's. */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:54330/postgres';
const TEMPLATE_LOCK = 7_361_003;

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Test databases of processes that died without their teardown (a killed run) are dropped. */
async function dropLeftovers(admin: pg.Client) {
  const { rows } = await admin.query("select datname from pg_database where datname like 'quad\\_test\\_%'");
  for (const { datname } of rows) {
    const pid = Number(/^quad_test_(\d+)_/.exec(datname)?.[1]);
    if (!pid || processAlive(pid)) continue;
    await admin.query(`drop database if exists "${datname}" with (force)`).catch(() => {});
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The name of a migrated template for these modules, building it on first use (once across processes). */
async function templateFor(given: readonly Module[]): Promise<string> {
  const modules = new Registry([...given]).modules; // dependency order, as at start
  const extensions = modules.flatMap((m) => m.databaseExtensions.map((e) => e.name));
  return withAdmin(async (admin) => {
    const hash = createHash('sha256');
    for (const f of listMigrations(modules)) hash.update(`${f.module}/${f.name}/${f.checksum}\n`);
    for (const e of extensions) hash.update(`ext:${e}\n`);
    // And the tables' tenancy and the policies this core makes of it (migrate applies them).
    const owner = decodeURIComponent(new URL(ADMIN_URL).username) || 'postgres';
    for (const [table, declared] of tableDeclarations(modules)) hash.update(`table:${table}:${declared.tenancy}:${tenancyVersion(table, declared, owner)}\n`);
    // And which of them the server can install, at which version: a template migrated while pgvector was missing
    // (its modules then run degraded, without their vector columns) is not reused once pgvector is installed.
    const available = await admin.query('select name, default_version from pg_available_extensions where name = any($1) order by name', [extensions]);
    for (const { name, default_version } of available.rows) hash.update(`available:${name}@${default_version}\n`);
    const name = `quad_tpl_${hash.digest('hex').slice(0, 16)}`;
    await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      await dropLeftovers(admin);
      const found = await admin.query('select datistemplate from pg_database where datname = $1', [name]);
      if (found.rows[0]?.datistemplate) return name;
      // A template left half-built by a crashed run is rebuilt.
      if (found.rowCount) await admin.query(`drop database "${name}" with (force)`);
      await admin.query(`create database "${name}"`);
      await migrate(databaseUrl(name), modules);
      await admin.query(`alter database "${name}" is_template true allow_connections false`);
      return name;
    } finally {
      await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
}

export interface TestDatabase { name: string; url: string; drop(): Promise<void> }

/** A fresh database, already migrated for `modules`. */
export async function createTestDatabase(modules: readonly Module[]): Promise<TestDatabase> {
  const template = await templateFor(modules);
  const name = `quad_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdmin(async (admin) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`create database "${name}" template "${template}"`);
        return;
      } catch (err) {
        // Another clone of the same template at the same moment: wait and retry.
        if (attempt >= 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  });
  return {
    name,
    url: databaseUrl(name),
    drop: () => withAdmin(async (admin) => { await admin.query(`drop database if exists "${name}" with (force)`); }),
  };
}
