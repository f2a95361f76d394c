// Reads settings: schema defaults < config/default.json < config/<NODE_ENV>.json < config/local.json < environment < overrides.
// The core and each plugin resolve their own schema from one ConfigSource; every bad setting is named in one error,
// each on one line that says what would be accepted (the allowed values, a schema's `errorMessage`), never a secret's
// value. A setting renamed since an older release lists its old names (`legacyNames`): an old name is read where the
// new one is not set, in the same place (file, environment, overrides), and gives one warning naming the new name.
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { Value, type ValueError } from '@sinclair/typebox/value';
import { TypeGuard, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { SettingsSchema, type Settings } from './schema.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid settings:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

export interface ConfigSourceOptions {
  /** Folder of the JSON config files; default `<cwd>/config`. */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  /** Highest precedence; what tests and the CLI pass in. */
  overrides?: Record<string, unknown>;
}

/** Settings whose values must not be echoed in an error: keys, tokens, passwords, URLs that may hold one. */
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|KEY|DATABASE_URL/;

function readJson(file: string, problems: string[]): Record<string, unknown> {
  if (!existsSync(file)) return {};
  try {
    const value = JSON.parse(readFileSync(file, 'utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value;
    problems.push(`${file}: must hold a JSON object`);
  } catch (err) {
    problems.push(`${file}: ${(err as Error).message}`);
  }
  return {};
}

export class ConfigSource {
  private readonly files: Record<string, unknown>;
  /** The file each file setting came from (the last one that set it), for messages. */
  private readonly origins = new Map<string, string>();
  private readonly env: NodeJS.ProcessEnv;
  private readonly overrides: Record<string, unknown>;
  /** Old names read (or ignored beside their new name) so far: one warning line each. */
  private readonly legacyWarnings = new Map<string, string>();

  constructor(options: ConfigSourceOptions = {}) {
    this.env = options.env ?? process.env;
    this.overrides = options.overrides ?? {};
    const dir = options.dir ?? join(process.cwd(), 'config');
    const nodeEnv = String(this.overrides.NODE_ENV ?? this.env.NODE_ENV ?? 'development');
    const problems: string[] = [];
    this.files = {};
    for (const name of ['default.json', `${nodeEnv}.json`, 'local.json']) {
      const file = join(dir, name);
      const values = readJson(file, problems);
      Object.assign(this.files, values);
      for (const key of Object.keys(values)) this.origins.set(key, shortPath(file));
    }
    if (problems.length) throw new ConfigError(problems);
  }

  /** A raw value by name (files, environment, overrides), for keys no schema lists such as LIMIT_<KEY>. */
  raw(name: string): unknown {
    if (name in this.overrides) return this.overrides[name];
    const fromEnv = this.env[name];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    return this.files[name];
  }

  /** The values of one schema's keys, converted, defaulted and checked. */
  resolve<T extends TObject>(schema: T): Static<T> {
    const merged: Record<string, unknown> = {};
    for (const [key, prop] of Object.entries(schema.properties)) {
      const names = [key, ...legacyNamesOf(prop)];
      // Each place in rising precedence; within one place the new name wins over an old one.
      const fromFiles = this.first(names, (n) => (n in this.files ? { value: this.files[n] } : undefined), (n) => ` (in ${this.origins.get(n)})`);
      if (fromFiles) merged[key] = fromFiles.value;
      // Environment values are strings: lists are comma-separated.
      const fromEnv = this.first(names, (n) => (this.env[n] !== undefined && this.env[n] !== '' ? { value: this.env[n] } : undefined), () => ' (in the environment)');
      if (fromEnv) merged[key] = TypeGuard.IsArray(prop) ? String(fromEnv.value).split(',').map((s) => s.trim()).filter(Boolean) : fromEnv.value;
      const fromOverrides = this.first(names, (n) => (n in this.overrides ? { value: this.overrides[n] } : undefined), () => '');
      if (fromOverrides) merged[key] = fromOverrides.value;
    }
    const value = Value.Default(schema, Value.Convert(schema, merged)) as Record<string, unknown>;
    // One line per setting (a union reports itself and each member): the first error says it.
    const seen = new Set<string>();
    const problems: string[] = [];
    for (const e of Value.Errors(schema, value)) {
      if (seen.has(e.path)) continue;
      seen.add(e.path);
      problems.push(problemLine(e));
    }
    if (problems.length) throw new ConfigError(problems);
    return value as Static<T>;
  }

  /** One line per old setting name that was read or ignored, each naming the new name; for the log at start. */
  warnings(): string[] {
    return [...this.legacyWarnings.values()];
  }

  /**
   * The value of the first of `names` (a setting, then its old names) that `read` finds in one place. An old name
   * read, or set beside the new one and so ignored, is remembered for warnings().
   */
  private first(names: string[], read: (name: string) => { value: unknown } | undefined, where: (name: string) => string): { value: unknown } | undefined {
    const found = names.map((name) => ({ name, hit: read(name) })).filter((f) => f.hit);
    const [winner, ...ignored] = found;
    if (!winner) return undefined;
    const current = names[0]!;
    if (winner.name !== current) this.legacyWarnings.set(winner.name, `${winner.name}${where(winner.name)}: old name of ${current}; rename it to ${current}`);
    for (const old of ignored) this.legacyWarnings.set(old.name, `${old.name}${where(old.name)}: old name of ${current}, ignored because ${current} is set as well; remove it`);
    return winner.hit;
  }

  /**
   * A line for each name that no schema knows: every one set in a config file or the overrides (almost always a
   * typo), and each one in the environment one letter away from a setting (the environment holds many other
   * variables, so only the near misses are surely ours). Each suggests the setting it probably meant.
   */
  unknownSettings(known: Iterable<string>): string[] {
    const names = [...new Set(known)];
    const isKnown = (k: string) => names.includes(k) || k.startsWith('LIMIT_');
    const problems: string[] = [];
    for (const key of new Set([...Object.keys(this.files), ...Object.keys(this.overrides)])) {
      if (isKnown(key)) continue;
      const where = key in this.overrides ? '' : ` (in ${this.origins.get(key)})`;
      const guess = closest(key, names, 2);
      problems.push(`${key}${where}: unknown setting${guess ? `; did you mean ${guess}?` : ''}`);
    }
    for (const key of Object.keys(this.env)) {
      if (isKnown(key) || key in this.files || key in this.overrides || !/^[A-Z][A-Z0-9_]{3,}$/.test(key)) continue;
      const guess = closest(key, names, 1);
      if (guess) problems.push(`${key} (in the environment): unknown setting; did you mean ${guess}? Rename or unset it`);
    }
    return problems;
  }
}

/** The old names a setting's schema lists (`legacyNames`), still read in its place. */
export function legacyNamesOf(schema: TSchema): string[] {
  const names = (schema as { legacyNames?: unknown }).legacyNames;
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
}

/** Every name a schema answers to: its settings and their old names. */
export function settingNames(schema: TObject): string[] {
  return Object.entries(schema.properties).flatMap(([key, prop]) => [key, ...legacyNamesOf(prop)]);
}

/** A file relative to the working directory when it is inside it, absolute otherwise. */
function shortPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/**
 * `NAME: what is wrong (got value); how to fix it`. A schema may say what is wrong in its own words (`errorMessage`,
 * instead of e.g. a regular expression) and how to fix it (`hint`). Secrets are described by their length, never shown.
 */
function problemLine(e: ValueError): string {
  const segments = e.path.split('/').filter(Boolean);
  const name = segments.map((s, i) => (i > 0 && /^\d+$/.test(s) ? `[${s}]` : (i > 0 ? `.${s}` : s))).join('') || '(root)';
  const got = SECRET_NAME.test(segments[0] ?? '') && typeof e.value === 'string'
    ? `a value of ${e.value.length} characters`
    : JSON.stringify(e.value);
  const hint = (e.schema as { hint?: unknown }).hint;
  return `${name}: ${expectation(e)} (got ${got})${typeof hint === 'string' ? `; ${hint}` : ''}`;
}

function expectation(e: ValueError): string {
  const schema = e.schema as TSchema & { errorMessage?: string };
  if (typeof schema.errorMessage === 'string') return schema.errorMessage;
  if (TypeGuard.IsUnion(schema) && schema.anyOf.every((s) => TypeGuard.IsLiteral(s))) {
    return `must be one of ${schema.anyOf.map((s) => String(s.const)).join(', ')}`;
  }
  return e.message;
}

/** The name within `max` edits (letters added, dropped, changed or swapped) of `name`, ignoring case; the nearest. */
function closest(name: string, candidates: string[], max: number): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(name.toUpperCase(), candidate.toUpperCase());
    if (distance <= max && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance (Levenshtein plus adjacent swaps: PROT -> PORT is one edit). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

export function loadSettings(source = new ConfigSource()): Settings {
  return source.resolve(SettingsSchema);
}
