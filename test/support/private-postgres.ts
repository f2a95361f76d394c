// A PostgreSQL server of a test's own (the machine's PostgreSQL 15 binaries, a fresh cluster in a temporary folder,
// a free port on loopback), for tests that stop and start the server under a running Quad: the shared server on
// 5432 serves every other test file at the same time and must never go down.
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Test } from 'tap';
import { freePort } from '../startup/support.js';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';
/** PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user and its commands run as it. */
const AS_ROOT = process.getuid?.() === 0;

export interface PrivatePostgres {
  /** A connection URL for one of its databases. */
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  /** Fast shutdown, as a restart does: sessions are ended (57P01), then connections are refused. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function command(file: string, args: string[]) {
  return AS_ROOT ? run('runuser', ['-u', 'postgres', '--', join(BIN, file), ...args]) : run(join(BIN, file), args);
}

export async function startPrivatePostgres(t: Test): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'quad-pg-'));
  if (AS_ROOT) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout), Number(group));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  await command('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  // No disk flushes: the test needs a server that stops and starts, not durability across a power cut.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const server: PrivatePostgres = {
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async createDatabase(name) {
      const admin = new pg.Client({ connectionString: server.url('postgres') });
      await admin.connect();
      try {
        await admin.query(`create database "${name}"`);
      } finally {
        await admin.end();
      }
      return server.url(name);
    },
    async stop() {
      await command('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    async start() {
      await command('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']);
    },
  };
  await server.start();
  t.teardown(async () => {
    await command('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });
  return server;
}
