// pgvector for the embedded PostgreSQL: puts the extension's files (vector.so, vector.control, vector--*.sql) into the
// server's binaries folder before it starts, so `create extension vector` works there. The files come from, in order:
// the binaries folder itself (done before), DATA_DIR/pgvector/pg<major> (kept from an earlier start), a pgvector the
// machine already has for the same major version (a pg_config of that version says where), or a build from source
// with that version's server headers (pg_config --includedir-server), `make` and a C compiler. The build runs once
// and is kept in DATA_DIR, so later starts only copy a few files. When none of it works the answer says why in one
// line, and Quad runs without vector search.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** pgvector's source when the machine has none built: a release tarball (≥ 0.8 for iterative index scans). */
export const PGVECTOR_SOURCE_URL = 'https://github.com/pgvector/pgvector/archive/refs/tags/v0.8.1.tar.gz';
const DOWNLOAD_TIMEOUT_MS = 60_000;
const BUILD_TIMEOUT_MS = 300_000;

export type VectorSupport =
  | { available: true; version: string; from: 'installed' | 'cache' | 'system' | 'built' }
  | { available: false; reason: string };

export interface PgvectorOptions {
  /** The server's binaries folder: bin/, lib/postgresql/, share/postgresql/extension/. */
  binDir: string;
  /** The server's major version (15 for 15.18). */
  major: number;
  /** DATA_DIR/pgvector: one folder per major version. */
  cacheDir: string;
  /** pg_config programs to ask. Default: /usr/lib/postgresql/<major>/bin/pg_config and the one on PATH. */
  pgConfigs?: string[];
  /** Where to get the source for a build: a .tar.gz URL, or a folder. Empty: never build. Default: PGVECTOR_SOURCE_URL. */
  source?: string;
  /** Progress lines (a build takes seconds). */
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

/** The files of a pgvector install, relative to a folder with lib/ and extension/ (the cache's layout). */
interface Files { lib: string; extension: string }

/** Make pgvector available to the server in `binDir`; never throws. */
export async function providePgvector(opts: PgvectorOptions): Promise<VectorSupport> {
  const target: Files = { lib: path.join(opts.binDir, 'lib', 'postgresql'), extension: path.join(opts.binDir, 'share', 'postgresql', 'extension') };
  const installed = versionIn(target);
  if (installed) return { available: true, version: installed, from: 'installed' };

  const cache = path.join(opts.cacheDir, `pg${opts.major}`);
  const cached: Files = { lib: path.join(cache, 'lib'), extension: path.join(cache, 'extension') };
  let from: 'cache' | 'system' | 'built' = 'cache';
  if (!versionIn(cached)) {
    const made = await fill(cache, opts);
    if ('reason' in made) return { available: false, reason: made.reason };
    from = made.from;
  }
  try {
    copyFiles(cached, target);
  } catch (err) {
    return { available: false, reason: `pgvector for PostgreSQL ${opts.major} is in DATA_DIR/pgvector but cannot be copied into the server's folder (${errorCode(err)})` };
  }
  return { available: true, version: versionIn(target)!, from };
}

/** The pgvector version a folder holds (its control file's default_version), or null when incomplete. */
function versionIn(files: Files): string | null {
  const control = path.join(files.extension, 'vector.control');
  if (!existsSync(path.join(files.lib, 'vector.so')) || !existsSync(control)) return null;
  return /default_version\s*=\s*'([^']+)'/.exec(readFileSync(control, 'utf8'))?.[1] ?? null;
}

function copyFiles(from: Files, to: Files): void {
  mkdirSync(to.lib, { recursive: true });
  mkdirSync(to.extension, { recursive: true });
  for (const name of readdirSync(from.extension).filter((n) => /^vector(\.control|--.*\.sql)$/.test(n))) {
    copyFileSync(path.join(from.extension, name), path.join(to.extension, name));
  }
  // The library last: its presence says the install is whole.
  copyFileSync(path.join(from.lib, 'vector.so'), path.join(to.lib, 'vector.so'));
}

interface PgConfig { program: string; pkglibdir: string; sharedir: string; includedirServer: string }

/** Put pgvector into the cache folder (whole or not at all): the machine's own, else a build. */
async function fill(cache: string, opts: PgvectorOptions): Promise<{ from: 'system' | 'built' } | { reason: string }> {
  const configs = await pgConfigsFor(opts.major, opts.pgConfigs ?? [`/usr/lib/postgresql/${opts.major}/bin/pg_config`, 'pg_config']);
  mkdirSync(opts.cacheDir, { recursive: true });
  const partial = mkdtempSync(path.join(opts.cacheDir, `pg${opts.major}.partial-`));
  try {
    const staged: Files = { lib: path.join(partial, 'lib'), extension: path.join(partial, 'extension') };
    let from: 'system' | 'built';
    const system = configs.find((c) => versionIn({ lib: c.pkglibdir, extension: path.join(c.sharedir, 'extension') }));
    if (system) {
      copyFiles({ lib: system.pkglibdir, extension: path.join(system.sharedir, 'extension') }, staged);
      from = 'system';
    } else {
      const headers = configs.find((c) => existsSync(path.join(c.includedirServer, 'postgres.h')));
      if (!headers) {
        return { reason: `no pgvector and no server headers for PostgreSQL ${opts.major} on this machine (install postgresql-${opts.major}-pgvector, or postgresql-server-dev-${opts.major} with make and a C compiler)` };
      }
      const why = await build(headers, partial, staged, opts);
      if (why) return { reason: why };
      from = 'built';
    }
    writeFileSync(path.join(partial, 'from.json'), `${JSON.stringify({ from, at: new Date().toISOString() })}\n`);
    try {
      renameSync(partial, cache);
    } catch (err) {
      if (!versionIn({ lib: path.join(cache, 'lib'), extension: path.join(cache, 'extension') })) throw err; // else another start made it first
    }
    return { from };
  } catch (err) {
    return { reason: `pgvector could not be prepared in DATA_DIR/pgvector (${errorCode(err)})` };
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}

/** The pg_config programs among `candidates` that exist and are of this major version, with their folders. */
async function pgConfigsFor(major: number, candidates: string[]): Promise<PgConfig[]> {
  const found: PgConfig[] = [];
  for (const program of [...new Set(candidates)]) {
    try {
      const { stdout } = await run(program, ['--version', '--pkglibdir', '--sharedir', '--includedir-server'], { timeout: 10_000 });
      const [version, pkglibdir, sharedir, includedirServer] = stdout.trim().split('\n');
      if (Number(/PostgreSQL (\d+)/.exec(version)?.[1]) === major) found.push({ program, pkglibdir, sharedir, includedirServer });
    } catch { /* not there */ }
  }
  return found;
}

/** Build pgvector against `config` into `staged`; a reason when it cannot. */
async function build(config: PgConfig, work: string, staged: Files, opts: PgvectorOptions): Promise<string | null> {
  const source = opts.source ?? PGVECTOR_SOURCE_URL;
  if (!source) return `no pgvector for PostgreSQL ${opts.major} on this machine, and building it is turned off`;
  for (const tool of ['make', 'cc']) {
    try { await run(tool, ['--version'], { timeout: 10_000 }); } catch { return `no pgvector for PostgreSQL ${opts.major} on this machine, and it cannot be built: "${tool}" is missing`; }
  }
  const src = path.join(work, 'src');
  mkdirSync(src);
  try {
    if (/^https?:\/\//.test(source)) {
      opts.log?.('embedded PostgreSQL: downloading pgvector to build it once', { from: source });
      const res = await fetch(source, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
      if (!res.ok) throw new Error(`${res.status} from ${new URL(source).host}`);
      writeFileSync(path.join(work, 'src.tar.gz'), Buffer.from(await res.arrayBuffer()));
      await run('tar', ['-xzf', path.join(work, 'src.tar.gz'), '-C', src, '--strip-components=1'], { timeout: 60_000 });
    } else if (existsSync(source) && statSync(source).isDirectory()) {
      await run('cp', ['-R', `${source}/.`, src]);
    } else {
      return `no pgvector for PostgreSQL ${opts.major} on this machine, and its source ${source} is not a URL or a folder`;
    }
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    return `no pgvector for PostgreSQL ${opts.major} on this machine, and its source could not be fetched (${e.cause?.code ?? e.message})`;
  }
  opts.log?.('embedded PostgreSQL: building pgvector (once; kept for later starts)', { postgres: opts.major, into: opts.cacheDir });
  const dest = path.join(work, 'dest');
  // OPTFLAGS empty: no -march=native, so the build also runs where DATA_DIR is moved to.
  const make = (args: string[]) => run('make', ['-C', src, `PG_CONFIG=${config.program}`, 'OPTFLAGS=', ...args], { timeout: BUILD_TIMEOUT_MS, maxBuffer: 16 << 20 });
  try {
    await make([]);
    await make(['install', `DESTDIR=${dest}`]);
  } catch (err) {
    const out = String((err as { stderr?: string }).stderr ?? (err as Error).message).trim().split('\n').filter(Boolean).at(-1) ?? '';
    return `no pgvector for PostgreSQL ${opts.major} on this machine, and building it failed: ${out.split(work).join('…').slice(0, 300)}`;
  }
  // Where pgxs put them under DESTDIR (its own idea of the folders, normally pg_config's).
  const lib = findDir(dest, 'vector.so');
  const extension = findDir(dest, 'vector.control');
  if (!lib || !extension) return `no pgvector for PostgreSQL ${opts.major} on this machine, and its build installed no vector.so or vector.control`;
  copyFiles({ lib, extension }, staged);
  return null;
}

/** The folder under `root` that holds a file of this name, or null. */
function findDir(root: string, name: string): string | null {
  const hit = (readdirSync(root, { recursive: true }) as string[]).find((p) => path.basename(p) === name);
  return hit ? path.dirname(path.join(root, hit)) : null;
}

/** An fs error's code (EACCES…), not its message, which names paths (/health is public). */
function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}
