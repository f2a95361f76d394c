// pgvector for the embedded PostgreSQL (issue 15 item 7): where the files come from (the server's folder, the cache in
// DATA_DIR, the machine's own pgvector for the same major version, a build), the one-line reason when none works,
// the real embedded server creating the extension, a cluster of another major version refused with what to do, and
// the `vector` field of /health.
import t, { type Test } from 'tap';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startTestApp } from '@quad/core/testing';
import { providePgvector } from '../../core/src/db/embedded-pgvector.js';
import { EmbeddedPostgresError, startEmbeddedPostgres } from '../../core/src/db/embedded.js';
import { embeddedEnv, freePort, pressCtrlC, ready, spawnQuad, stopLeftoverServer } from './support.js';

function tmp(t: Test, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A server's binaries folder with nothing of pgvector. */
function binaries(root: string): string {
  const bin = join(root, 'native');
  mkdirSync(join(bin, 'lib', 'postgresql'), { recursive: true });
  mkdirSync(join(bin, 'share', 'postgresql', 'extension'), { recursive: true });
  return bin;
}

/** A machine's PostgreSQL of `major` (pg_config, folders), optionally with pgvector and with server headers. */
function machine(root: string, major: number, opts: { pgvector?: boolean; headers?: boolean } = {}): string {
  const base = join(root, `pg${major}`);
  const lib = join(base, 'lib');
  const share = join(base, 'share');
  const include = join(base, 'include', 'server');
  for (const d of [lib, join(share, 'extension'), include]) mkdirSync(d, { recursive: true });
  if (opts.pgvector) {
    writeFileSync(join(lib, 'vector.so'), 'ELF');
    writeFileSync(join(share, 'extension', 'vector.control'), "comment = 'vector'\ndefault_version = '0.8.0'\nmodule_pathname = '$libdir/vector'\n");
    writeFileSync(join(share, 'extension', 'vector--0.8.0.sql'), '-- sql');
    writeFileSync(join(share, 'extension', 'vector--0.7.4--0.8.0.sql'), '-- upgrade');
    writeFileSync(join(share, 'extension', 'other.control'), 'not ours');
  }
  if (opts.headers) writeFileSync(join(include, 'postgres.h'), '/* */');
  const program = join(base, 'pg_config');
  writeFileSync(program, `#!/bin/sh\nprintf '%s\\n' 'PostgreSQL ${major}.3 (test)' '${lib}' '${share}' '${include}'\n`);
  chmodSync(program, 0o755);
  return program;
}

t.test('the files come from the cache, the machine, or not at all, with a reason', async (t) => {
  const root = tmp(t, 'quad-pgvector-');
  const cacheDir = join(root, 'data', 'pgvector');
  const with15 = machine(root, 15, { pgvector: true });
  const bin = binaries(join(root, 'a'));

  const first = await providePgvector({ binDir: bin, major: 15, cacheDir, pgConfigs: [machine(root, 16, { pgvector: true }), with15], source: '' });
  t.same(first, { available: true, version: '0.8.0', from: 'system' }, "the machine's pgvector of the same major version; 16's is passed over");
  t.same(readdirSync(join(bin, 'share', 'postgresql', 'extension')).sort(), ['vector--0.7.4--0.8.0.sql', 'vector--0.8.0.sql', 'vector.control'], 'only its files');
  t.ok(existsSync(join(bin, 'lib', 'postgresql', 'vector.so')));
  t.ok(existsSync(join(cacheDir, 'pg15', 'lib', 'vector.so')), 'kept in DATA_DIR/pgvector/pg15');
  t.same(readdirSync(cacheDir), ['pg15'], 'no partial folder left');

  t.same(await providePgvector({ binDir: bin, major: 15, cacheDir, pgConfigs: [], source: '' }), { available: true, version: '0.8.0', from: 'installed' }, 'a second start finds it in place');
  const other = binaries(join(root, 'b'));
  t.same(await providePgvector({ binDir: other, major: 15, cacheDir, pgConfigs: [], source: '' }), { available: true, version: '0.8.0', from: 'cache' }, 'new binaries (an upgrade) take it from the cache');

  const none = await providePgvector({ binDir: binaries(join(root, 'c')), major: 17, cacheDir, pgConfigs: [with15, join(root, 'no-such-pg_config')], source: '' });
  t.same(none, { available: false, reason: 'no pgvector and no server headers for PostgreSQL 17 on this machine (install postgresql-17-pgvector, or postgresql-server-dev-17 with make and a C compiler)' });
  t.same(readdirSync(cacheDir), ['pg15'], 'nothing cached for 17');
});

t.test('a build needs its source: turned off or unreachable, the reason says so', async (t) => {
  const root = tmp(t, 'quad-pgvector-');
  const cacheDir = join(root, 'pgvector');
  const headers = machine(root, 15, { headers: true });
  const off = await providePgvector({ binDir: binaries(join(root, 'a')), major: 15, cacheDir, pgConfigs: [headers], source: '' });
  t.same(off, { available: false, reason: 'no pgvector for PostgreSQL 15 on this machine, and building it is turned off' });

  const port = await freePort(); // nothing listens there: a refused download
  const refused = await providePgvector({ binDir: binaries(join(root, 'b')), major: 15, cacheDir, pgConfigs: [headers], source: `http://127.0.0.1:${port}/pgvector.tar.gz` });
  t.same(refused, { available: false, reason: 'no pgvector for PostgreSQL 15 on this machine, and its source could not be fetched (ECONNREFUSED)' });
  t.same(readdirSync(cacheDir), [], 'no partial folder left');

  const missing = await providePgvector({ binDir: binaries(join(root, 'c')), major: 15, cacheDir, pgConfigs: [headers], source: join(root, 'no-such-folder') });
  t.match(missing, { available: false, reason: /its source .* is not a URL or a folder/ });
});

t.test('the embedded server gets pgvector and creates the extension', async (t) => {
  const dataDir = tmp(t, 'quad-data-');
  chmodSync(dataDir, 0o755); // the embedded server runs as the postgres user when we are root
  const cluster = join(dataDir, 'pg');
  t.teardown(() => stopLeftoverServer(cluster));
  const lines: string[] = [];
  const db = await startEmbeddedPostgres({ dataDir: cluster, port: await freePort(), log: (msg) => lines.push(msg) });
  t.teardown(() => db.stop());
  t.match(db.vector, { available: true, version: /^0\.\d+\.\d+$/ }, 'from the machine\'s pgvector for PostgreSQL 15 here (the CI setup builds it)');
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  t.teardown(() => client.end());
  await client.query('create extension if not exists vector');
  const { rows } = await client.query<{ d: number }>("select ('[1,0,0]'::vector <=> '[0,1,0]'::vector) as d");
  t.equal(rows[0].d, 1, 'cosine distance of orthogonal vectors');
  await client.query('create table v (e vector(3)); create index on v using hnsw (e vector_cosine_ops)');
  t.ok((await client.query("select version() as v")).rows[0].v.startsWith('PostgreSQL 15.'), 'the embedded server is PostgreSQL 15');
});

t.test('a cluster of another major version is refused with what to do', async (t) => {
  const dataDir = tmp(t, 'quad-data-');
  chmodSync(dataDir, 0o755);
  const cluster = join(dataDir, 'pg');
  mkdirSync(cluster, { mode: 0o700 });
  writeFileSync(join(cluster, 'PG_VERSION'), '18\n');
  await t.rejects(startEmbeddedPostgres({ dataDir: cluster, port: await freePort() }), new EmbeddedPostgresError(
    `Embedded PostgreSQL: ${cluster} holds a PostgreSQL 18 cluster, but the embedded server is PostgreSQL 15 (the version pgvector can be built for here). Move ${cluster} aside to start with a new database, or run PostgreSQL 18 yourself and set DATABASE_URL.`));
});

t.test('/health says whether vector search is available', async (t) => {
  const quad = await startTestApp(t);
  const health = (await quad.api.inject('/health')).json();
  t.same(health.vector, { available: true }, 'the test server has pgvector');
  t.same(quad.services.vector, { available: true, reason: null });
});

t.test('quad run says once that the embedded database has pgvector, and /health agrees', async (t) => {
  const env = await embeddedEnv(t);
  const quad = spawnQuad(t, { env });
  const banner = await ready(quad);
  const said = quad.lines().filter((l) => l.includes('pgvector')).map((l) => JSON.parse(l));
  t.match(said, [{ level: 30, msg: 'embedded PostgreSQL: pgvector is available', version: /^0\.\d+\.\d+$/ }], 'one line');
  const health = await (await fetch(`${banner.api}/health`)).json();
  t.same(health.vector, { available: true });
  pressCtrlC(quad);
  t.equal((await quad.exited).code, 0);
});
