// Reads settings: schema defaults < config/default.json < config/<NODE_ENV>.json < config/local.json < environment < overrides.
// The core and each plugin resolve their own schema from one ConfigSource; every bad setting is named in one error.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { TypeGuard, type Static, type TObject } from '@sinclair/typebox';
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
  private readonly env: NodeJS.ProcessEnv;
  private readonly overrides: Record<string, unknown>;

  constructor(options: ConfigSourceOptions = {}) {
    this.env = options.env ?? process.env;
    this.overrides = options.overrides ?? {};
    const dir = options.dir ?? join(process.cwd(), 'config');
    const nodeEnv = String(this.overrides.NODE_ENV ?? this.env.NODE_ENV ?? 'development');
    const problems: string[] = [];
    this.files = {
      ...readJson(join(dir, 'default.json'), problems),
      ...readJson(join(dir, `${nodeEnv}.json`), problems),
      ...readJson(join(dir, 'local.json'), problems),
    };
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
      if (key in this.files) merged[key] = this.files[key];
      const fromEnv = this.env[key];
      // Environment values are strings: lists are comma-separated.
      if (fromEnv !== undefined && fromEnv !== '') {
        merged[key] = TypeGuard.IsArray(prop) ? fromEnv.split(',').map((s) => s.trim()).filter(Boolean) : fromEnv;
      }
      if (key in this.overrides) merged[key] = this.overrides[key];
    }
    const value = Value.Default(schema, Value.Convert(schema, merged)) as Record<string, unknown>;
    const problems = [...Value.Errors(schema, value)].map((e) => {
      const name = e.path.replace(/^\//, '').replace(/\//g, '.') || '(root)';
      return `${name}: ${e.message} (got ${JSON.stringify(e.value)})`;
    });
    if (problems.length) throw new ConfigError(problems);
    return value as Static<T>;
  }

  /** Keys set in config files or overrides that no schema knows: almost always typos. */
  unknownKeys(known: Iterable<string>): string[] {
    const names = new Set(known);
    return [...new Set([...Object.keys(this.files), ...Object.keys(this.overrides)])]
      .filter((k) => !names.has(k) && !k.startsWith('LIMIT_'));
  }
}

export function loadSettings(source = new ConfigSource()): Settings {
  return source.resolve(SettingsSchema);
}
