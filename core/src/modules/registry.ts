// The registry: loads the enabled plugins, validates every manifest, and indexes scopes, limits, tools and jobs.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Value } from '@sinclair/typebox/value';
import { parseCronItems } from 'graphile-worker';
import { ManifestSchema } from './manifest-schema.js';
import { defineModule } from './define.js';
import type { IntegrationDecl, JobDecl, LimitDecl, Module, ModuleManifest, ScopeDecl, ToolDecl } from './types.js';

export class ManifestError extends Error {
  constructor(plugin: string, field: string, problem: string) {
    super(`Plugin "${plugin}": ${field}: ${problem}`);
    this.name = 'ManifestError';
  }
}

/** Import a plugin by package name or by path (relative to `baseDir`) and return its manifest. */
export async function importPlugin(spec: string, baseDir = process.cwd()): Promise<Module> {
  const isPath = spec.startsWith('.') || isAbsolute(spec);
  let loaded: Record<string, unknown>;
  try {
    loaded = await import(isPath ? pathToFileURL(packageEntry(resolve(baseDir, spec))).href : spec);
  } catch (err) {
    throw new ManifestError(spec, 'package', `cannot be imported: ${(err as Error).message}`);
  }
  const manifest = (loaded.default ?? loaded.module) as ModuleManifest | undefined;
  if (!manifest || typeof manifest !== 'object') {
    throw new ManifestError(spec, 'default export', 'must be a manifest made with defineModule()');
  }
  // Accept a plain object from a plugin built against an older API: defaults are filled the same way.
  return Object.isFrozen(manifest) ? (manifest as Module) : defineModule(manifest);
}

/** A plugin path may name a package folder: use its package.json entry point, as a package name would. */
function packageEntry(path: string): string {
  if (!existsSync(path) || !statSync(path).isDirectory()) return path;
  const manifestFile = join(path, 'package.json');
  if (!existsSync(manifestFile)) return join(path, 'index.js');
  const pkg = JSON.parse(readFileSync(manifestFile, 'utf8'));
  const root = typeof pkg.exports === 'string' ? pkg.exports : pkg.exports?.['.'];
  const entry = typeof root === 'string' ? root : root?.import ?? root?.default ?? pkg.main ?? 'index.js';
  return join(path, entry);
}

function checkShape(mod: Module, label: string) {
  const first = Value.Errors(ManifestSchema, mod).First();
  if (first) {
    const field = first.path.replace(/^\//, '').replace(/\//g, '.') || 'manifest';
    throw new ManifestError(label, field, `${first.message} (got ${JSON.stringify(first.value) ?? typeof first.value})`);
  }
  if (mod.migrations !== undefined && !(mod.migrations instanceof URL) && typeof mod.migrations !== 'string') {
    throw new ManifestError(label, 'migrations', 'must be a folder URL (new URL(\'./migrations/\', import.meta.url)) or a path');
  }
}

function checkNamespace(mod: Module, field: string, name: string, sep: ':' | '.') {
  if (!name.startsWith(`${mod.name}${sep}`)) {
    throw new ManifestError(mod.name, field, `"${name}" is outside the module's namespace "${mod.name}${sep}"`);
  }
}

export class Registry {
  readonly modules: readonly Module[];
  readonly scopes = new Map<string, ScopeDecl & { module: string }>();
  readonly limits = new Map<string, LimitDecl & { module: string }>();
  readonly tools = new Map<string, ToolDecl & { module: string }>();
  readonly jobs = new Map<string, JobDecl & { module: string }>();
  readonly integrations = new Map<string, IntegrationDecl & { module: string }>();
  /** Every org secret a module may store: integration secrets and module secrets, by name. */
  readonly secrets = new Map<string, { name: string; label: string; writeOnly: boolean; module: string; integration: string | null; optional: boolean }>();
  private readonly byName = new Map<string, Module>();

  constructor(modules: Module[]) {
    for (const mod of modules) {
      checkShape(mod, mod?.name ?? '(unnamed)');
      if (this.byName.has(mod.name)) throw new ManifestError(mod.name, 'name', 'another loaded module has the same name');
      this.byName.set(mod.name, mod);
    }
    for (const mod of modules) this.index(mod);
    for (const mod of modules) this.checkReferences(mod);
    this.modules = this.dependencyOrder(modules);
  }

  private index(mod: Module) {
    mod.scopes.forEach((s, i) => {
      checkNamespace(mod, `scopes[${i}].name`, s.name, ':');
      if (this.scopes.has(s.name)) throw new ManifestError(mod.name, `scopes[${i}].name`, `"${s.name}" is declared twice`);
      this.scopes.set(s.name, { ...s, module: mod.name });
    });
    mod.limits.forEach((l, i) => {
      checkNamespace(mod, `limits[${i}].key`, l.key, '.');
      if (l.kind === 'rate' && !l.window) throw new ManifestError(mod.name, `limits[${i}].window`, 'a rate limit needs a window');
      if (this.limits.has(l.key)) throw new ManifestError(mod.name, `limits[${i}].key`, `"${l.key}" is declared twice`);
      if (l.kind === 'count' && !l.count) throw new ManifestError(mod.name, `limits[${i}].count`, 'a count limit needs a count function');
      this.limits.set(l.key, { ...l, module: mod.name });
    });
    mod.tools.forEach((t, i) => {
      checkNamespace(mod, `tools[${i}].name`, t.name, '.');
      if (this.tools.has(t.name)) throw new ManifestError(mod.name, `tools[${i}].name`, `"${t.name}" is declared twice`);
      this.tools.set(t.name, { ...t, module: mod.name });
    });
    mod.integrations.forEach((integration, i) => {
      if (this.integrations.has(integration.key)) throw new ManifestError(mod.name, `integrations[${i}].key`, `"${integration.key}" is declared twice`);
      this.integrations.set(integration.key, { ...integration, module: mod.name });
      integration.secrets.forEach((s, j) => this.addSecret(mod.name, `integrations[${i}].secrets[${j}].name`, {
        name: s.name, label: s.label, writeOnly: true, module: mod.name, integration: integration.key, optional: s.optional ?? false,
      }));
    });
    mod.secrets.forEach((s, i) => {
      checkNamespace(mod, `secrets[${i}].name`, s.name, '.');
      this.addSecret(mod.name, `secrets[${i}].name`, { name: s.name, label: s.label, writeOnly: s.writeOnly ?? true, module: mod.name, integration: null, optional: true });
    });
    mod.daemons.forEach((d, i) => checkNamespace(mod, `daemons[${i}].name`, d.name, '.'));
    mod.jobs.forEach((j, i) => {
      checkNamespace(mod, `jobs[${i}].name`, j.name, '.');
      if (this.jobs.has(j.name)) throw new ManifestError(mod.name, `jobs[${i}].name`, `"${j.name}" is declared twice`);
      if (j.cron) {
        try {
          parseCronItems([{ task: j.name, match: j.cron }]);
        } catch (err) {
          throw new ManifestError(mod.name, `jobs[${i}].cron`, (err as Error).message);
        }
      }
      this.jobs.set(j.name, { ...j, module: mod.name });
    });
  }

  private addSecret(module: string, field: string, secret: Registry['secrets'] extends Map<string, infer V> ? V : never) {
    if (this.secrets.has(secret.name)) throw new ManifestError(module, field, `secret "${secret.name}" is declared twice`);
    this.secrets.set(secret.name, secret);
  }

  private checkReferences(mod: Module) {
    mod.tools.forEach((t, i) => {
      if (!this.scopes.has(t.scope)) throw new ManifestError(mod.name, `tools[${i}].scope`, `scope "${t.scope}" is not declared by any loaded module`);
    });
    mod.needs.forEach((n, i) => {
      if (n.kind === 'module' && !n.optional && !this.byName.has(n.key)) {
        throw new ManifestError(mod.name, `needs[${i}].key`, `needs module "${n.key}", which is not loaded (add it to PLUGINS)`);
      }
      if (n.kind === 'integration' && !this.integrations.has(n.key)) {
        throw new ManifestError(mod.name, `needs[${i}].key`, `needs integration "${n.key}", which no loaded module declares`);
      }
    });
    mod.scopes.forEach((s, i) => {
      if (s.integration && !this.integrations.has(s.integration)) {
        throw new ManifestError(mod.name, `scopes[${i}].integration`, `integration "${s.integration}" is not declared by any loaded module`);
      }
    });
  }

  /** Core modules first, then every module after the modules it needs (their tables exist before its own). */
  private dependencyOrder(modules: Module[]): Module[] {
    const ordered: Module[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (mod: Module, path: string[]) => {
      if (state.get(mod.name) === 'done') return;
      if (state.get(mod.name) === 'visiting') throw new ManifestError(mod.name, 'needs', `circular need: ${[...path, mod.name].join(' -> ')}`);
      state.set(mod.name, 'visiting');
      for (const need of mod.needs) {
        const dep = need.kind === 'module' ? this.byName.get(need.key) : undefined;
        if (dep) visit(dep, [...path, mod.name]);
      }
      state.set(mod.name, 'done');
      ordered.push(mod);
    };
    for (const mod of modules.filter((m) => m.core)) visit(mod, []);
    for (const mod of modules) visit(mod, []);
    return ordered;
  }

  get(name: string): Module | undefined {
    return this.byName.get(name);
  }

  /** Is `module` on for an org? Core modules always are; an unknown module never is. */
  isEnabled(orgModules: Record<string, boolean>, module: string): boolean {
    const mod = this.byName.get(module);
    if (!mod) return false;
    return mod.core || orgModules[module] === true;
  }
}
