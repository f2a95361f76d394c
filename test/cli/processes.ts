// The operator CLI: its commands run in the test process (quad: the program cli.ts runs, on streams and an
// environment of their own, with config/default.json's plugins as from the repo root), or as a real `quad` process
// where the process itself is tested (quadProcess; and `quad run` as the app the commands change, runApp). A process
// runs the built JavaScript with the production condition, as `npx quad` does (tap's `before` script brings the
// build up to date): without tsx's loader each process costs about 40 % less CPU.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { Readable, Writable } from 'node:stream';
import type { Test } from 'tap';
import { createTestDatabase } from '@quad/core/testing';
import { runQuad } from '../../core/src/cli/main.js';
import { allCommands, buildProgram, commandPath } from '../../core/src/cli/program.js';
import { importPlugin } from '../../core/src/modules/registry.js';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { REPO_ROOT as ROOT } from '../support/repo-root.js';

export { ROOT };

/** `quad` as `npx quad` runs it once built: append the command's arguments. */
export const QUAD = [process.execPath, '--conditions=production', '--enable-source-maps', `${ROOT}core/dist/cli.js`];

/** The plugins config/default.json enables, which every process started from the repo root loads. */
export const DEFAULT_PLUGINS: string[] = JSON.parse(readFileSync(new URL('config/default.json', `file://${ROOT}`), 'utf8')).PLUGINS;

/** A fresh database migrated for the core and the default plugins, dropped at teardown. */
export async function defaultDatabase(t: Test, extraPlugins: string[] = []) {
  // Imported here from the tree this file runs in (the compiled tree under `npm test`), as the core above is.
  const plugins = await Promise.all([...DEFAULT_PLUGINS, ...extraPlugins].map((p) => importPlugin(p, new URL('../../', import.meta.url).pathname)));
  const db = await createTestDatabase([...CORE_MODULES, ...plugins]);
  t.teardown(() => db.drop());
  return db;
}

export interface CliResult { code: number | null; stdout: string; stderr: string }

/** A command's environment: the test's settings over PATH, HOME and warnings-only logs, and nothing else. */
const commandEnv = (env: Record<string, string> = {}) => ({ PATH: process.env.PATH!, HOME: process.env.HOME!, LOG_LEVEL: 'warn', ...env });

/**
 * Run `quad <args>` to its end in this process (cli/main.ts's runQuad: the same program, its own streams and
 * environment), with stdin not a terminal, ending after `input`. What a command does, says and answers is the same
 * as in a process of its own, which the tests of the process itself start (quadProcess; test/cli/bin.test.ts runs the
 * `quad` bin): a process costs about 0.65 s of CPU to load the core and every plugin.
 */
export async function quad(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  const stdout = new Collected();
  const stderr = new Collected();
  const outcome = await runQuad(args, {
    env: commandEnv(options.env),
    stdin: Readable.from([options.input ?? ''], { objectMode: false }), stdout, stderr,
  });
  if (outcome === 'serving') throw new Error('quad() runs commands that end: start `quad run` with runApp');
  return { code: outcome, stdout: stdout.text, stderr: stderr.text };
}

/** A stream that keeps what is written to it. */
class Collected extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

/** Run `quad <args>` as a process of its own to its end, with stdin a pipe (not a terminal), closed after `input`. */
export function quadProcess(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  const child = spawn(QUAD[0]!, [...QUAD.slice(1), ...args], {
    cwd: ROOT, env: commandEnv(options.env),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdin.end(options.input ?? '');
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Start `quad run --role api` and wait for its ready line; stopped with SIGTERM at teardown. */
export async function runApp(t: Test, env: Record<string, string>): Promise<void> {
  const child = spawn(QUAD[0]!, [...QUAD.slice(1), 'run', '--role', 'api'], {
    cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
  });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.teardown(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  await new Promise<void>((resolve, reject) => {
    const collect = (d: Buffer) => {
      output += d;
      if (output.includes('"msg":"quad ready"')) resolve();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => reject(new Error(`quad run exited ${code}:\n${output}`)));
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Every `quad …` a hint names must be a command that exists: its first words name a command with no subcommands. */
export function assertHintsExist(t: Test, stderr: string) {
  const { program } = buildProgram();
  const leaves = new Set(allCommands(program).filter((c) => !c.commands.length).map(commandPath));
  const hints = [...stderr.matchAll(/\bquad((?: [a-z][a-z-]*)+)/g)].map((m) => `quad${m[1]}`);
  t.ok(hints.length, 'the output has hints');
  for (const hint of hints) {
    const words = hint.split(' ');
    t.ok(words.some((_, i) => leaves.has(words.slice(0, i + 1).join(' '))), `"${hint}…" names a command that exists`);
  }
}
