// The operator CLI as operators run it: a real `quad` process per command, from the repo root (so config/default.json
// enables the shipped plugins), against a test database; and `quad run` as the app the commands change. The process
// runs the built JavaScript with the production condition, as `npx quad` does (tap's `before` script brings the
// build up to date): without tsx's loader each command costs about 40 % less CPU.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Test } from 'tap';
import { createTestDatabase } from '@quad/core/testing';
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

/** Run `quad <args>` to its end with stdin a pipe (not a terminal), closed after `input`. */
export function quad(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  const child = spawn(QUAD[0]!, [...QUAD.slice(1), ...args], {
    cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...options.env },
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
