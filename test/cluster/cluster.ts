// A deployment on loopback for the scale-out tests: real `quad run --role api|worker` processes of the built CLI
// (test/cli/processes.ts's QUAD), all on one database and one DATA_DIR, as compose.yaml runs them scaled out.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Test } from 'tap';
import { until } from '@quad/core/testing';
import { QUAD } from '../cli/processes.js';
import { ready, ROOT, spawnQuad, type QuadProcess } from '../startup/support.js';

export type Role = 'api' | 'worker';

export interface QuadNode {
  role: Role;
  /** The node process's id (the built CLI runs in node itself, no wrapper). */
  pid: number;
  /** http://127.0.0.1:<port> of an api process. */
  url: string;
  process: QuadProcess;
}

// The processes run in process groups of their own, so they outlive this one unless killed: tap's teardowns kill
// them, and this kills what is left when a failed start ends the file before its teardowns run.
const running = new Set<QuadProcess>();
process.once('exit', () => {
  for (const quad of running) {
    try {
      process.kill(-quad.child.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});

/** Ready lines can be slow with both cores busy (two test files, several processes starting at once). */
const READY_TIMEOUT_MS = 120_000;

/**
 * The fixture module compiled as `npm run build` compiles a plugin (esbuild, file by file, its SQL beside), so the
 * built CLI loads it with plain node: tsx's loader would cost each process about a second and a half of CPU. It
 * lives in a temporary folder whose node_modules links to the repo's, so `@quad/core` is the build the CLI runs.
 */
export async function builtFixture(t: Test, source: string, migrations: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'quad-scale-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  await build({
    entryPoints: [join(ROOT, source)], outdir: dir, format: 'esm', platform: 'node', target: 'node22.12',
    tsconfig: join(ROOT, 'tsconfig.json'), logLevel: 'warning',
  });
  cpSync(join(ROOT, migrations), join(dir, migrations.split('/').pop()!), { recursive: true });
  return join(dir, source.split('/').pop()!.replace(/\.ts$/, '.js'));
}

/** Settings every process of the deployment shares: one database, one DATA_DIR (the JWT keys), one SECRET_KEY. */
export function sharedSettings(t: Test, settings: Record<string, string>): Record<string, string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'quad-scale-data-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  return { DATA_DIR: dataDir, SECRET_KEY: randomBytes(36).toString('base64url'), ...settings };
}

/** Start `quad run --role <role>` and wait for its ready line; killed at teardown if still running. */
export async function startNode(t: Test, role: Role, env: Record<string, string>): Promise<QuadNode> {
  const quad = spawnQuad(t, { command: [...QUAD, 'run', '--role', role], env });
  running.add(quad);
  void quad.exited.then(() => running.delete(quad));
  const fields = await ready(quad, READY_TIMEOUT_MS);
  return { role, pid: quad.child.pid!, url: typeof fields.api === 'string' ? fields.api : '', process: quad };
}

/** Send a signal and wait for the exit. */
export async function stopNode(node: QuadNode, signal: NodeJS.Signals = 'SIGTERM') {
  node.process.child.kill(signal);
  return node.process.exited;
}

export interface Answer<T = Record<string, unknown>> { status: number; body: T }

/** One HTTP request to an API process; the JSON body (or null). Network errors are thrown. */
export async function request<T = Record<string, unknown>>(
  base: string, method: string, path: string, options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), redirect: 'manual' });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: res.status, body: body as T };
}

/** Poll `check` until it answers true (every 50 ms, at most `timeoutMs`); whether it did. */
export function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  return until('a condition', check, { timeoutMs }).then(() => true, () => false);
}
