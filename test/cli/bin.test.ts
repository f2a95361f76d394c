// `npx quad` (the package's bin) runs the production build: on a fresh clone it builds first, with the build's lines
// on stderr so stdout stays the command's; later it rebuilds only after an edit; the process that serves is the
// built JavaScript with the production condition, and a stop signal sent to `quad` reaches it. The clone has no
// tsx, so the TypeScript source could not run at all.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { cloneInto, ready, spawnQuad } from '../startup/support.js';
import { defaultDatabase } from './processes.js';

interface Result { code: number | null; stdout: string; stderr: string }

t.test('npx quad builds when it must, then runs the built CLI', async (t) => {
  const outer = mkdtempSync(join(tmpdir(), 'quad-bin-'));
  t.teardown(() => rmSync(outer, { recursive: true, force: true }));
  const clone = join(outer, 'quad');
  cloneInto(clone);
  rmSync(join(clone, 'node_modules', 'tsx'), { recursive: true, force: true });
  // What npx runs: the link npm made in node_modules/.bin.
  const bin = join(clone, 'node_modules', '.bin', 'quad');
  const quad = (args: string[]) => new Promise<Result>((resolve) => {
    const child = spawn(bin, args, { cwd: clone, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });

  const first = await quad(['token', 'create', '--help']);
  t.equal(first.code, 0, first.stderr);
  t.match(first.stdout, /^Usage: quad token create/, 'the command\'s output alone on stdout');
  t.match(first.stderr, /^built core: \d+ files -> core\/dist$/m, 'a fresh clone is built first, on stderr');
  t.match(first.stderr, /^built plugins\/points: /m);

  const again = await quad(['--help']);
  t.equal(again.code, 0);
  t.equal(again.stderr, '', 'an up-to-date build is not built again');

  appendFileSync(join(clone, 'core', 'src', 'cli', 'output.ts'), '\n');
  const edited = await quad(['--help']);
  t.match(edited.stderr, /^built core: /m, 'an edit is built before the command runs');
  t.notMatch(edited.stderr, /built plugins/, 'only the package that changed');

  const usage = await quad(['frobnicate']);
  t.equal(usage.code, 2, 'the exit code of the command');
  t.match(usage.stderr, /error: unknown command 'frobnicate'/);

  const db = await defaultDatabase(t);
  const server = spawnQuad(t, { cwd: clone, command: [bin, 'run', '--role', 'api'], env: { DATABASE_URL: db.url, LOG_FORMAT: 'json' } });
  const banner = await ready(server);
  const command = readFileSync(`/proc/${banner.pid}/cmdline`, 'utf8').split('\0');
  t.ok(command.includes('--conditions=production') && command.includes(join(clone, 'core', 'dist', 'cli.js')), 'the built CLI serves', { command });
  t.not(banner.pid, server.child.pid, 'in a child of quad');
  server.child.kill('SIGTERM');
  const { code } = await server.exited;
  t.equal(code, 0, 'the signal sent to quad stops the server, and quad exits as it did');
  t.match(server.lines().slice(-2), [/"msg":"shutting down"/, /"msg":"stopped"/], { output: server.output() });
});
