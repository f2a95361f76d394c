// The run command as operators use it: with DATABASE_URL, with an embedded database when it is unset,
// and as separate api and worker processes sharing one PostgreSQL.
// tap: a process of its own (half a minute of processes starting and stopping).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { CODE_EXT, createTestDatabase, moduleCommand } from '@quad/core/testing';
import { CORE_MODULES } from '../core/src/modules/load.js';
import sample from './fixtures/sample-module.js';

const ROOT = new URL('../', import.meta.url).pathname;

interface Proc { child: ChildProcess; port: number | null; output: () => string }

/** Start `quad run` and wait for its ready line; stopped with SIGTERM at teardown. */
async function runQuad(t: Test, args: string[], env: Record<string, string>): Promise<Proc> {
  const [file, ...rest] = moduleCommand('core/src/cli', 'run', ...args);
  const child = spawn(file, rest, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
  });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  t.teardown(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  const ready = await new Promise<{ api?: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after 30 s:\n${output}`)), 30_000);
    const check = () => {
      const line = output.split('\n').slice(0, -1).find((l) => l.includes('"msg":"quad ready"')); // whole lines only
      if (line) { clearTimeout(timer); resolve(JSON.parse(line)); }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited ${code}:\n${output}`)); });
  });
  return { child, port: ready.api ? Number(new URL(ready.api).port) : null, output: () => output };
}

/** SIGTERM and assert a clean exit; the process's output is shown when it is not. */
async function stop(t: Test, proc: Proc, what: string) {
  const exited = new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
  proc.child.kill('SIGTERM');
  t.equal(await exited, 0, `${what} exits cleanly on SIGTERM`, { output: proc.output() });
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

t.test('run with DATABASE_URL serves /health and stops on SIGTERM', async (t) => {
  const db = await createTestDatabase(CORE_MODULES);
  t.teardown(() => db.drop());
  const quad = await runQuad(t, [], { DATABASE_URL: db.url });
  const res = await fetch(`http://127.0.0.1:${quad.port}/health`);
  t.equal(res.status, 200);
  t.match(await res.json(), { status: 'ok', database: { ok: true } });
  await stop(t, quad, 'quad');
});

t.test('run without DATABASE_URL starts an embedded PostgreSQL', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'quad-data-'));
  chmodSync(dataDir, 0o755); // the embedded server runs as the postgres user when we are root
  const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
  const cold = await runQuad(t, [], env);
  t.match(cold.output(), /DATABASE_URL is unset: starting an embedded PostgreSQL/);
  const res = await fetch(`http://127.0.0.1:${cold.port}/health`);
  t.equal(res.status, 200);
  t.match(await res.json(), { database: { ok: true }, jobs: { ok: true } });
  await stop(t, cold, 'cold start');
  // A second start reuses the cluster in DATA_DIR.
  const warm = await runQuad(t, [], env);
  t.equal((await fetch(`http://127.0.0.1:${warm.port}/health`)).status, 200);
  await stop(t, warm, 'warm start');
});

t.test('api and worker roles run as separate processes over one database', async (t) => {
  const db = await createTestDatabase([...CORE_MODULES, sample]);
  t.teardown(() => db.drop());
  const env = { DATABASE_URL: db.url, PLUGINS: `./test/fixtures/sample-module${CODE_EXT}` };
  const api = await runQuad(t, ['--role', 'api'], env);
  const worker = await runQuad(t, ['--role', 'worker'], env);
  t.equal(worker.port, null, 'the worker serves no HTTP');
  const pgClient = new (await import('pg')).default.Client({ connectionString: db.url });
  await pgClient.connect();
  t.teardown(() => pgClient.end());
  await pgClient.query(`insert into organizations (prefix, name, modules) values ('acm', 'ACM', '{"sample": true}')`);
  const started = await fetch(`http://127.0.0.1:${api.port}/api/sample/acm/work`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms: 0 }),
  });
  t.equal(started.status, 202);
  const { run_id } = await started.json() as { run_id: number };
  let status = 'queued';
  for (let i = 0; i < 300 && (status === 'queued' || status === 'running'); i++) {
    await new Promise((r) => setTimeout(r, 50));
    status = (await pgClient.query('select status from job_runs where id = $1', [run_id])).rows[0].status;
  }
  t.equal(status, 'succeeded', 'the worker process ran the job the api process queued', { api: api.output(), worker: worker.output() });
  await stop(t, worker, 'worker');
  await stop(t, api, 'api');
});

t.test('a bad setting stops the run command with the setting named', async (t) => {
  const [file, ...args] = moduleCommand('core/src/cli', 'run');
  const child = spawn(file, args, {
    cwd: ROOT, env: { PATH: process.env.PATH, DATABASE_URL: 'postgres://x/y', JOB_THREADS: 'lots' },
  });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  t.equal(code, 1);
  t.match(err, /Invalid settings:\n {2}JOB_THREADS: Expected integer \(got "lots"\)/);
});
