// The image's commands on the image's files, without Docker: the Dockerfile's last stage laid out in a folder
// (stage.ts: its COPYs, its production install, DATA_DIR made for the USER), then compose.yaml's Quad services run
// from it with the image's ENTRYPOINT, ENV and the services' environment, as an unprivileged user who can write
// DATA_DIR only: `migrate` on an empty database, then `run --role api` and `run --role worker` side by side, an admin
// command as the README runs it (`docker compose run --rm api org add …`), and the HEALTHCHECK command against the
// API, which fails once the API stopped. The commands of the build stage are covered elsewhere: `npm ci` by CI's
// .ci/run, `npm run build` by tap's `before` script (scripts/build.mjs) and test/startup/npm-start.test.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import pg from 'pg';
import t, { type Test } from 'tap';
import { ADMIN_URL, databaseUrl } from '@quad/core/testing';
import { interpolate, readCompose, readDockerfile } from './recipe.js';
import { buildLastStage, type BuiltStage, type Owner } from './stage.js';

/** `nobody` stands for the image's `node` user: it owns DATA_DIR and nothing else. */
const owner: Owner | null = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : null;

interface Proc { child: ChildProcess; output(): string; exited: Promise<number | null> }

function start(stage: BuiltStage, command: string[], env: Record<string, string>): Proc {
  // Through `env -u NODE_OPTIONS`: tap puts its process-info loader in the NODE_OPTIONS of every process a test
  // starts, which would write its records into the working directory, the app folder the user may not write.
  const child = spawn('env', ['-u', 'NODE_OPTIONS', ...command], { cwd: stage.workdir, env: { PATH: process.env.PATH, ...env }, ...owner });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return { child, output: () => output, exited };
}

/** The process's `quad ready` line, once written. */
function ready(proc: Proc): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const line = proc.output().split('\n').slice(0, -1).find((l) => l.includes('"msg":"quad ready"'));
      if (line) resolve(JSON.parse(line));
    };
    proc.child.stdout!.on('data', check);
    proc.exited.then((code) => reject(new Error(`exited ${code} before it was ready:\n${proc.output()}`)));
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** An empty database (no migration yet), dropped at teardown; named as the test harness names its own. */
async function emptyDatabase(t: Test): Promise<string> {
  const name = `quad_test_${process.pid}_deploy`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`create database "${name}"`);
  await admin.end();
  t.teardown(async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL });
    await client.connect();
    await client.query(`drop database if exists "${name}" with (force)`);
    await client.end();
  });
  return databaseUrl(name);
}

t.test('the image runs compose.yaml\'s commands: migrate, api, worker, an admin command and the health check', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'quad-image-'));
  chmodSync(dir, 0o755); // the unprivileged user reads the app in it
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const stage = buildLastStage(readDockerfile(), dir, owner);
  const compose = readCompose();
  const [url, port, toolPort] = await Promise.all([emptyDatabase(t), freePort(), freePort()]);

  /** A Quad service's process: the image's ENTRYPOINT and ENV, the service's command and environment. */
  const service = (name: string, command = compose.services[name]!.command!) => {
    const environment = Object.fromEntries(Object.entries(compose.services[name]!.environment ?? {})
      .map(([k, v]) => [k, interpolate(v, { POSTGRES_PASSWORD: 'from-dot-env' })]));
    t.match(environment.DATABASE_URL, /^postgres:\/\/quad:from-dot-env@db:5432\/quad$/, `${name}: the database of the db service`);
    // Here the test's database stands for the db service; .env's settings for a test's ports and address.
    return start(stage, [...stage.entrypoint, ...command], {
      ...stage.env, ...environment, DATABASE_URL: url, PORT: String(port), TOOL_PORT: String(toolPort), HOST: '127.0.0.1', LOG_LEVEL: 'info',
    });
  };
  const healthcheck = () => start(stage, stage.healthcheck, { PORT: String(port) }).exited;

  const migrate = service('migrate');
  t.equal(await migrate.exited, 0, 'migrate succeeds', { output: migrate.output() });
  t.match(migrate.output(), /applied \d+ migration\(s\)/, 'on an empty database it applies every migration');

  const api = service('api', stage.cmd);
  t.same(compose.services.api!.command, stage.cmd, 'compose runs the image\'s default command as the API');
  const worker = service('worker');
  const orgAdd = service('api', ['org', 'add', '--prefix', 'acm', '--name', 'ACM', '--guild', '111111111111111111']);
  t.teardown(() => {
    for (const p of [api, worker, orgAdd]) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  });
  const [apiReady, workerReady] = await Promise.all([ready(api), ready(worker)]);
  t.match(apiReady, { role: 'api', api: `http://127.0.0.1:${port}`, mcp: `http://127.0.0.1:${toolPort}/mcp` });
  t.match(workerReady, { role: 'worker' });
  t.notOk(workerReady.api, 'the worker serves no HTTP');
  t.equal(await orgAdd.exited, 0, 'an admin command runs through the image\'s entrypoint', { output: orgAdd.output() });

  t.equal(await healthcheck(), 0, 'the HEALTHCHECK command passes while the API serves');
  const base = `http://127.0.0.1:${port}`;
  const health = await (await fetch(`${base}/health`)).json();
  t.match(health, { database: { ok: true }, jobs: { ok: true }, vector: { available: true } }, 'the API reaches the database, with pgvector');
  t.equal((await fetch(`${base}/dashboard/`)).status, 200, 'the dashboard\'s build is in the image');
  t.equal((await fetch(`${base}/dashboard/plugins/feeds/index.js`)).status, 200, 'and the plugins\' page bundles');
  t.equal((await fetch(`http://127.0.0.1:${toolPort}/mcp`, { method: 'POST' })).status, 401, 'the MCP server answers on TOOL_PORT');
  for (const file of ['jwt_private.pem', 'jwt_public.pem', 'secret_key']) {
    t.ok(existsSync(join(stage.root, stage.owned[0]!, file)), `${file} is kept in DATA_DIR, the one folder the user may write`);
  }

  api.child.kill('SIGTERM');
  worker.child.kill('SIGTERM');
  t.equal(await api.exited, 0, 'the API stops cleanly on the SIGTERM of docker stop', { output: api.output() });
  t.equal(await worker.exited, 0, 'and so does the worker', { output: worker.output() });
  t.not(await healthcheck(), 0, 'the HEALTHCHECK command fails once the API is down');
});
