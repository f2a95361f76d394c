// The deployment recipe as test/deploy/ reads it: the Dockerfile's stages and instructions, compose.yaml with its
// merge keys resolved, what .dockerignore leaves out of the build context, and the workspace packages. Plain readers
// of the files' own syntax, no Docker needed.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT as ROOT } from '../support/repo-root.js';

export { ROOT };

export interface Instruction {
  keyword: string;
  /** Leading `--name=value` (or `--name`) flags. */
  flags: Record<string, string | true>;
  /** What follows the flags. */
  args: string;
  /** 1-based line of the instruction's first line. */
  line: number;
}

export interface Stage { name: string | null; image: string; instructions: Instruction[] }

export interface Dockerfile { text: string; args: Record<string, string>; stages: Stage[] }

/** The Dockerfile's instructions, continuation lines joined and comments dropped, grouped by stage. */
export function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | null = null;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trimEnd();
    if (/^\s*#/.test(line) || (!pending && !line.trim())) return;
    const continued = line.endsWith('\\');
    const part = continued ? line.slice(0, -1) : line;
    pending = pending ? { text: `${pending.text} ${part.trim()}`, line: pending.line } : { text: part.trim(), line: i + 1 };
    if (continued) return;
    instructions.push(instruction(pending.text, pending.line));
    pending = null;
  });
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'ARG' && !stages.length) {
      const [name, value = ''] = ins.args.split('=');
      args[name!] = value;
    } else if (ins.keyword === 'FROM') {
      const [image, as, name] = ins.args.split(/\s+/);
      const resolved = image!.replace(/\$\{(\w+)\}/g, (_, v: string) => args[v] ?? '');
      stages.push({ name: as?.toUpperCase() === 'AS' ? name! : null, image: resolved, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(ins);
    }
  }
  return { text, args, stages };
}

function instruction(text: string, line: number): Instruction {
  const [, keyword = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(text) ?? [];
  const flags: Record<string, string | true> = {};
  let args = rest;
  for (let m = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(args); m; m = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(args)) {
    flags[m[1]!] = m[2] ?? true;
    args = args.slice(m[0].length);
  }
  return { keyword: keyword.toUpperCase(), flags, args, line };
}

export const readDockerfile = (path = join(ROOT, 'Dockerfile')) => parseDockerfile(readFileSync(path, 'utf8'));

/** The one instruction of a keyword in a stage (the last one, as Docker uses). */
export function last(stage: Stage, keyword: string): Instruction | undefined {
  return stage.instructions.filter((i) => i.keyword === keyword).at(-1);
}

/** An exec-form instruction's arguments (`CMD ["a", "b"]`; HEALTHCHECK's after its `CMD`). */
export function execForm(ins: Instruction): string[] {
  return JSON.parse(ins.keyword === 'HEALTHCHECK' ? ins.args.replace(/^CMD\s+/, '') : ins.args);
}

/** compose.yaml as Compose reads it, `<<` merge keys resolved. */
export function readCompose(path = join(ROOT, 'compose.yaml')): ComposeFile {
  return parse(readFileSync(path, 'utf8'), { merge: true }) as ComposeFile;
}

export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  env_file?: unknown;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  healthcheck?: { test?: string[]; disable?: boolean };
  deploy?: { resources?: { limits?: { cpus?: string; memory?: string } } };
}

export interface ComposeFile { name?: string; services: Record<string, ComposeService>; volumes?: Record<string, unknown> }

/** Compose's `${NAME:?message}` and `${NAME:-default}` interpolation, from `vars`. */
export function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::[?-]([^}]*))?\}/g, (whole, name: string, fallback?: string) => {
    if (vars[name] !== undefined) return vars[name]!;
    if (whole.includes(':-')) return fallback ?? '';
    throw new Error(`${name} is unset: ${fallback}`);
  });
}

/** Whether .dockerignore keeps a context path (relative, `/`-separated) out of the build context. */
export function dockerignore(path = join(ROOT, '.dockerignore')): (file: string) => boolean {
  const patterns = readFileSync(path, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  if (patterns.some((p) => p.startsWith('!'))) throw new Error('.dockerignore: exceptions (!) are not read here; teach test/deploy/recipe.ts');
  const matchers = patterns.map((p) => globRegExp(p.replace(/^\/+/, '')));
  return (file) => {
    const parts = file.split('/');
    // An ignored folder takes everything in it.
    return parts.some((_, i) => matchers.some((m) => m.test(parts.slice(0, i + 1).join('/'))));
  };
}

/** A Docker path pattern (Go's filepath.Match with `**`) as a regular expression of whole paths. */
export function globRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (pattern.startsWith('**/', i)) { out += '(?:.*/)?'; i += 2; } else if (pattern.startsWith('**', i)) { out += '.*'; i += 1; } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** The paths under `base` (relative, `/`-separated) that a pattern of literal and `*` segments matches. */
export function expand(base: string, pattern: string): string[] {
  let found = [''];
  for (const segment of pattern.split('/').filter((s) => s && s !== '.')) {
    const re = globRegExp(segment);
    found = found.flatMap((dir) => {
      const at = join(base, dir);
      if (!segment.includes('*')) return existsSync(join(at, segment)) ? [join(dir, segment)] : [];
      if (!existsSync(at) || !statSync(at).isDirectory()) return [];
      return readdirSync(at).filter((e) => re.test(e)).map((e) => join(dir, e));
    });
  }
  return found.filter(Boolean);
}

const rootPackage = () => JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };

/** Every workspace package's folder (relative), as npm reads package.json's "workspaces". */
export function workspaces(): string[] {
  return rootPackage().workspaces.flatMap((glob) => expand(ROOT, glob)).filter((dir) => existsSync(join(ROOT, dir, 'package.json')));
}

/** The workspace packages that `npm run build` compiles (a "production" export), each with its dist/ folder. */
export function builtPackages(): string[] {
  return workspaces().filter((dir) => {
    const entry = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')).exports?.['.'];
    return typeof entry === 'object' && entry?.production;
  });
}

/** package-lock.json's packages, by install path. */
export function lockedPackages(): Record<string, { version?: string; dev?: boolean; optional?: boolean; hasInstallScript?: boolean; link?: boolean }> {
  return JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages;
}

/** An install path's package name (`core/node_modules/@a/b` -> `@a/b`). */
export const packageName = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
