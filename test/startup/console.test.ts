// What an operator sees: the ready banner, the database server's own output kept out of the console, logs that are
// JSON or pretty by setting, and a quiet Ctrl-C with the embedded database.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { createTestDatabase } from '@quad/core/testing';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { embeddedEnv, listening, pressCtrlC, ready, spawnQuad } from './support.js';

t.test('embedded database: the banner, a clean console and a quiet Ctrl-C', async (t) => {
  const env = await embeddedEnv(t);
  const quad = spawnQuad(t, { env });
  const banner = await ready(quad);

  t.match(banner, {
    level: 30, role: 'all',
    api: /^http:\/\/127\.0\.0\.1:\d+$/,
    mcp: /^http:\/\/127\.0\.0\.1:\d+\/mcp$/,
    next: /npx quad org add --prefix <prefix> --name '<name>' --guild <Discord server id>/,
  }, 'the banner names the API, the MCP server and, with no org yet, the command that adds one');
  t.equal(banner.docs, `${banner.api}/docs`);
  t.equal((await fetch(banner.docs as string)).status, 200, 'the docs answer where the banner says');
  t.equal(banner.dashboard, `${banner.api}/dashboard/`);
  t.equal((await fetch(banner.dashboard as string)).status, 200, 'the dashboard answers where the banner says');
  t.equal((await fetch(`${banner.api}/health`)).status, 200);
  t.equal((await fetch(banner.mcp as string, { method: 'POST' })).status, 401, 'the MCP server answers where the banner says');

  const startLines = quad.lines();
  t.same(startLines.filter((l) => !l.startsWith('{')), [], 'every console line is a JSON log line');
  t.notMatch(quad.output(), /initdb|database system|graphile_worker\.migrations|The files belonging/, "the database server's own output is not on the console");
  const serverLog = readFileSync(join(env.DATA_DIR, 'pg.log'), 'utf8');
  t.match(serverLog, /The files belonging to this database system/, "initdb's report is in DATA_DIR/pg.log");
  t.match(serverLog, /database system is ready to accept connections/, "and so is the server's log");
  t.match(JSON.parse(startLines.find((l) => l.includes('starting an embedded PostgreSQL'))!), {
    dataDir: join(env.DATA_DIR, 'pg'), port: Number(env.EMBEDDED_PG_PORT),
  }, 'data in fields, not in the message');

  pressCtrlC(quad);
  const { code } = await quad.exited;
  t.equal(code, 0, 'Ctrl-C exits 0', { output: quad.output() });
  const lines = quad.lines();
  const long = lines.filter((l) => Buffer.byteLength(l) > 1024);
  t.same(long.map((l) => l.slice(0, 300)), [], 'no line over 1 KB');
  const shutdown = lines.slice(lines.findIndex((l) => l.includes('"msg":"shutting down"'))).map((l) => JSON.parse(l));
  t.match(shutdown, [{ msg: 'shutting down', signal: 'SIGINT' }], 'the signal is named');
  t.match(shutdown.at(-1), { msg: 'stopped' }, 'and the stop is the last line');
  t.same(shutdown.filter((l) => l.level >= 40), [], 'nothing warns or fails on the way down');
  t.notOk(await listening(Number(env.EMBEDDED_PG_PORT)), 'the embedded server stopped with Quad');
  t.notOk(existsSync(join(env.DATA_DIR, 'pg', 'postmaster.pid')));
});

t.test('with an org: pretty logs on request, and the next step is signing in', async (t) => {
  const db = await createTestDatabase(CORE_MODULES);
  t.teardown(() => db.drop());
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query(`insert into organizations (prefix, name, modules) values ('acm', 'ACM', '{}')`);
  await client.end();

  const dataDir = mkdtempSync(join(tmpdir(), 'quad-start-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const quad = spawnQuad(t, { env: { DATABASE_URL: db.url, DATA_DIR: dataDir, LOG_FORMAT: 'pretty', CLIENT_ID: '1234' } });
  await new Promise<void>((resolve, reject) => {
    quad.child.stdout!.on('data', () => { if (/next: .*\n/.test(quad.output())) resolve(); });
    quad.child.once('exit', () => reject(new Error(quad.output())));
  });
  const output = quad.output();
  t.notMatch(output, /"level":/, 'no JSON');
  t.match(output, /INFO: quad ready\n {4}role: "all"\n/, 'the banner, for people');
  t.match(output, /\n {4}next: "sign in as an officer: http:\/\/127\.0\.0\.1:\d+\/api\/auth\/login\?client=dashboard"\n/);
  t.match(output, /\n {4}access: "report \(ACCESS_ENFORCE=false: refusals are only logged\)"\n/, 'the ready line says report mode runs');
  t.match(output, /WARN: ACCESS_ENFORCE is false \(report mode\): .* 0 requests would have been refused in the last 24 hours\. Set ACCESS_ENFORCE=true/, 'and the start warns, with the count');
  quad.child.kill('SIGTERM');
  t.equal((await quad.exited).code, 0);
});
