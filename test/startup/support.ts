// Real `quad` processes for the start-up tests: spawned as a terminal would run a foreground job (its own process
// group, so a test can send the group the Ctrl-C a terminal sends), with a clean environment.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Test } from 'tap';
import { REPO_ROOT as ROOT } from '../support/repo-root.js';

export { ROOT };
/** tsx's loader by path, so the CLI can run from any working directory. */
const TSX = import.meta.resolve('tsx');

export interface QuadProcess {
  child: ChildProcess;
  output(): string;
  /** Whole lines written so far, stdout and stderr. */
  lines(): string[];
  /** Its exit code or signal, once it has exited and its output has all been read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `quad run` (from the TypeScript source, as in development) or any command, e.g. `npm start`. */
export function spawnQuad(t: Test, opts: { env?: Record<string, string>; cwd?: string; command?: string[] } = {}): QuadProcess {
  const [file, ...args] = opts.command ?? [process.execPath, '--import', TSX, join(ROOT, 'core/src/cli.ts'), 'run'];
  const child = spawn(file, args, {
    cwd: opts.cwd ?? ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', TOOL_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...opts.env },
  });
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { output += d; });
  // 'close': its output is complete too (npm exits on a signal before the node it started has finished writing).
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    await exited;
  });
  return { child, output: () => output, lines: () => output.split('\n').slice(0, -1), exited };
}

/** The `quad ready` line's fields, once it is written (JSON logs). */
export async function ready(quad: QuadProcess, timeoutMs = 60_000): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after ${timeoutMs / 1000} s:\n${quad.output()}`)), timeoutMs);
    const check = () => {
      const line = quad.lines().find((l) => l.includes('"msg":"quad ready"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    };
    quad.child.stdout!.on('data', check);
    quad.child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited before it was ready:\n${quad.output()}`));
    });
    check();
  });
}

/** Ctrl-C in the terminal: SIGINT to the whole foreground process group. */
export function pressCtrlC(quad: QuadProcess) {
  process.kill(-quad.child.pid!, 'SIGINT');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Settings for an embedded database of its own: a data folder (removed at teardown) and a free port. */
export async function embeddedEnv(t: Test): Promise<{ DATA_DIR: string; EMBEDDED_PG_PORT: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'quad-start-'));
  chmodSync(dataDir, 0o755); // where the postgres user may create the cluster when we are root
  t.teardown(() => {
    stopLeftoverServer(join(dataDir, 'pg'));
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
}

/** If a test failed before Quad stopped its embedded server, stop it (it runs in a session of its own). */
export function stopLeftoverServer(cluster: string) {
  const pidFile = join(cluster, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  try {
    process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGQUIT');
  } catch {
    // already gone
  }
}

/** Is anything listening on 127.0.0.1:port? */
export async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** A copy of the working tree as a clone has it (tracked and new files, nothing ignored) and its installed packages. */
export function cloneInto(dir: string) {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0').filter((f) => f && existsSync(join(ROOT, f)));
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(ROOT, f), join(dir, f));
  }
  // `npm ci` would fetch the same packages again; hard links copy them in a second (a full copy off this disk).
  // Workspaces have node_modules of their own where their versions differ from the root's (core's commander).
  const workspaces = ['core', ...['plugins', 'examples'].flatMap((group) => readdirSync(join(ROOT, group)).map((name) => join(group, name)))];
  for (const folder of ['', ...workspaces].map((w) => join(w, 'node_modules')).filter((m) => existsSync(join(ROOT, m)))) {
    try {
      execFileSync('cp', ['-al', join(ROOT, folder), join(dir, folder)]);
    } catch {
      rmSync(join(dir, folder), { recursive: true, force: true });
      execFileSync('cp', ['-a', join(ROOT, folder), join(dir, folder)]);
    }
  }
}
