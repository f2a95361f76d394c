// A start that fails on something the operator can fix says what to do in one line, without a stack, and exits 1.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ADMIN_URL, createTestDatabase } from '@quad/core/testing';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { freePort, spawnQuad } from './support.js';

/** Run `quad run` to its failure; its output lines. */
async function failedStart(t: Test, env: Record<string, string>, cwd?: string): Promise<string[]> {
  const quad = spawnQuad(t, { env, cwd });
  const { code } = await quad.exited;
  t.equal(code, 1, 'exits 1', { output: quad.output() });
  t.notMatch(quad.output(), /^\s+at /m, 'no stack');
  return quad.lines();
}

/** The lines an operator reads: all but the JSON log lines written before the failure. */
const messages = (lines: string[]) => lines.filter((l) => !l.startsWith('{'));

function occupy(t: Test, port: number): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer().listen(port, '127.0.0.1', () => resolve(server));
    t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  });
}

/** A temporary folder, removed at teardown. */
function tempDir(t: Test, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const admin = new URL(ADMIN_URL);
const server = `${admin.hostname}:${admin.port || 5432}`;

t.test('a database that does not exist', async (t) => {
  const url = new URL(ADMIN_URL);
  url.pathname = '/quad_no_such_database';
  const lines = await failedStart(t, { DATABASE_URL: url.href });
  t.same(messages(lines), [
    `PostgreSQL at ${server} has no database "quad_no_such_database": create it (createdb -h ${admin.hostname} -p ${admin.port || 5432} -U ${admin.username || 'postgres'} quad_no_such_database) or fix DATABASE_URL`,
  ]);
});

t.test('a refused connection', async (t) => {
  const port = await freePort();
  const lines = await failedStart(t, { DATABASE_URL: `postgres://quad:secret-password@127.0.0.1:${port}/quad` });
  t.same(messages(lines), [
    `Cannot connect to PostgreSQL at 127.0.0.1:${port} (connection refused): start it, fix the host and port in DATABASE_URL, or unset DATABASE_URL to use the embedded database`,
  ]);
  t.notMatch(lines.join('\n'), /secret-password/, 'the password is not shown');
});

t.test('a port in use names the setting that chose it', async (t) => {
  const db = await createTestDatabase(CORE_MODULES);
  t.teardown(() => db.drop());
  const cwd = tempDir(t, 'quad-cwd-'); // no config/: the core alone, already migrated
  for (const setting of ['PORT', 'TOOL_PORT']) {
    const port = await freePort();
    await occupy(t, port);
    const lines = await failedStart(t, { DATABASE_URL: db.url, [setting]: String(port) }, cwd);
    t.same(messages(lines), [
      `Port ${port} on 127.0.0.1 is already in use (another Quad?): stop whatever listens there, or set ${setting} to another port`,
    ], setting);
  }
});

t.test("the embedded database's port in use", async (t) => {
  const port = await freePort();
  await occupy(t, port);
  const dataDir = tempDir(t, 'quad-start-');
  const lines = await failedStart(t, { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) });
  t.same(messages(lines), [
    `Embedded PostgreSQL: port ${port} on 127.0.0.1 is already in use (EADDRINUSE). Stop whatever listens there (another Quad or PostgreSQL?) or set EMBEDDED_PG_PORT to another port.`,
  ]);
});

t.test('a misspelt setting, in a config file or the environment, stops the start before the embedded database', async (t) => {
  const cwd = tempDir(t, 'quad-cwd-');
  mkdirSync(join(cwd, 'config'));
  writeFileSync(join(cwd, 'config', 'local.json'), JSON.stringify({ PROT: 9000 }));
  const lines = await failedStart(t, { DATA_DIR: join(cwd, 'data'), LOGLEVEL: 'debug' }, cwd);
  t.same(lines, [
    'Invalid settings:',
    '  PROT (in config/local.json): unknown setting; did you mean PORT?',
    '  LOGLEVEL (in the environment): unknown setting; did you mean LOG_LEVEL? Rename or unset it',
  ]);
  t.notOk(existsSync(join(cwd, 'data')), 'no embedded database was started');
});

t.test('LOG_LEVEL lists the levels', async (t) => {
  const lines = await failedStart(t, { DATABASE_URL: ADMIN_URL, LOG_LEVEL: 'verbose' });
  t.same(lines, ['Invalid settings:', '  LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")']);
});

t.test('SECRETS_KEY shows how to make a key, not a regular expression, and never the value', async (t) => {
  const lines = await failedStart(t, { DATABASE_URL: ADMIN_URL, SECRETS_KEY: 'my-secret!' });
  t.same(lines, [
    'Invalid settings:',
    `  SECRETS_KEY[0]: must be 32 random bytes in base64 (got a value of 10 characters); generate one with: node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"`,
  ]);
});
