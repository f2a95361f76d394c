// The registry: loads the enabled plugins, validates every manifest, and indexes scopes, limits, tools (their inputs'
// integers bounded, see http/integer-bounds.ts), jobs and the services modules provide each other.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Value } from '@sinclair/typebox/value';
import { parseCronItems } from 'graphile-worker';
import semver from 'semver';
import { SettingsSchema } from '../config/schema.js';
import { VERSION } from '../version.js';
import type { DeclaredSecret, ModuleRegistry, ServiceProvision } from '../core-services.js';
import { ManifestSchema } from './manifest-schema.js';
import { defineModule } from './define.js';
import { claimedNames, inNamespace, KIND_LABEL, NAMESPACE_HINT, ownedNames, undeclaredTable, type NameKind } from './namespaces.js';
import { pagesProblem } from './pages.js';
import { IntegerBoundError, withIntegerBounds } from '../http/integer-bounds.js';
import { importSpecifier } from './package-entry.js';
import type { IntegrationDecl, JobDecl, LimitDecl, Module, ModuleManifest, ScopeDecl, ToolDecl } from './types.js';

export class ManifestError extends Error {
  constructor(plugin: string, field: string, problem: string) {
    super(`Plugin "${plugin}": ${field}: ${problem}`);
    this.name = 'ManifestError';
  }
}

/** A tool's input with int4 bounds on every integer that declares none (a copy; see http/integer-bounds.ts). */
function boundToolInput<T>(module: string, index: number, input: T): T {
  try {
    return withIntegerBounds(input, 'input');
  } catch (err) {
    if (err instanceof IntegerBoundError) throw new ManifestError(module, `tools[${index}].${err.field}`, err.message);
    throw err;
  }
}

/** Modules shipped in @quad/core (marked by the core itself): only these may be `core: true`. */
const shippedInCore = new WeakSet<Module>();

/** Mark the core's own modules; a plugin cannot reach this (it is not part of the plugin API). */
export function markShippedInCore<T extends readonly Module[]>(modules: T): T {
  for (const mod of modules) shippedInCore.add(mod);
  return modules;
}

/** Route files @fastify/autoload mounts from a routes folder (a `.d.ts` is not one). */
export const ROUTE_FILE = /^(?!index\.)[^.].*(?<!\.d)\.(?:ts|js|mjs)$/;

/** Import a plugin by package name or by path (relative to `baseDir`) and return its manifest. */
export async function importPlugin(spec: string, baseDir = process.cwd()): Promise<Module> {
  let loaded: Record<string, unknown>;
  try {
    loaded = await import(importSpecifier(spec, baseDir));
  } catch (err) {
    const typescript = (err as { code?: string }).code === 'ERR_UNKNOWN_FILE_EXTENSION'
      ? ' (TypeScript: `npm start` runs plain node; give the package a "production" export to built JavaScript, as the packages under plugins/ and examples/ have and `npm run build` compiles, or run `npm run dev`)'
      : '';
    throw new ManifestError(spec, 'package', `cannot be imported: ${(err as Error).message}${typescript}`);
  }
  const manifest = (loaded.default ?? loaded.module) as ModuleManifest | undefined;
  if (!manifest || typeof manifest !== 'object') {
    throw new ManifestError(spec, 'default export', 'must be a manifest made with defineModule()');
  }
  // Accept a plain object from a plugin built against an older API: defaults are filled the same way.
  return Object.isFrozen(manifest) ? (manifest as Module) : defineModule(manifest);
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
  if (mod.routes !== undefined && typeof mod.routes !== 'function') checkRoutesFolder(mod, label);
  if (mod.core && !shippedInCore.has(mod)) {
    throw new ManifestError(label, 'core', 'only modules shipped in @quad/core may be core (always on); remove `core: true`');
  }
  if (mod.coreVersion !== undefined) {
    if (!semver.validRange(mod.coreVersion)) throw new ManifestError(label, 'coreVersion', `"${mod.coreVersion}" is not a semver range (e.g. "^0.1.0")`);
    if (!semver.satisfies(VERSION, mod.coreVersion, { includePrerelease: true })) {
      throw new ManifestError(label, 'coreVersion', `needs @quad/core ${mod.coreVersion}; this is @quad/core ${VERSION}`);
    }
  }
}

/** A routes folder: a `file:` URL of a folder of route files, without an index file (autoload would load only it). */
function checkRoutesFolder(mod: Module, label: string) {
  const url = mod.routes as unknown;
  if (!(url instanceof URL) || url.protocol !== 'file:') {
    throw new ManifestError(label, 'routes', 'must be a Fastify plugin or a folder URL (new URL(\'./routes/\', import.meta.url))');
  }
  const dir = fileURLToPath(url);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ManifestError(label, 'routes', `folder ${dir} does not exist`);
  const files = readdirSync(dir);
  const index = files.find((f) => /^index\.[cm]?[jt]s$/.test(f));
  if (index) throw new ManifestError(label, 'routes', `${index}: a routes folder has no index file (autoload would mount only it)`);
  if (!files.some((f) => ROUTE_FILE.test(f))) throw new ManifestError(label, 'routes', `folder ${dir} has no route files`);
}

function checkNamespace(mod: Module, field: string, name: string, sep: ':' | '.') {
  if (!name.startsWith(`${mod.name}${sep}`)) {
    throw new ManifestError(mod.name, field, `"${name}" is outside the module's namespace "${mod.name}${sep}"`);
  }
}

/** Validates and indexes manifests; the Registry keeps only its results (so its type is just ModuleRegistry). */
class RegistryBuilder {
  modules: readonly Module[];
  readonly scopes = new Map<string, ScopeDecl & { module: string }>();
  readonly limits = new Map<string, LimitDecl & { module: string }>();
  readonly tools = new Map<string, ToolDecl & { module: string }>();
  readonly jobs = new Map<string, JobDecl & { module: string }>();
  readonly integrations = new Map<string, IntegrationDecl & { module: string }>();
  /** Every org secret a module may store: integration secrets and module secrets, by name. */
  readonly secrets = new Map<string, DeclaredSecret>();
  readonly services = new Map<string, { provision: ServiceProvision; module: string }>();
  readonly byName = new Map<string, Module>();

  constructor(modules: Module[]) {
    for (const mod of modules) {
      checkShape(mod, mod?.name ?? '(unnamed)');
      if (this.byName.has(mod.name)) throw new ManifestError(mod.name, 'name', 'another loaded module has the same name');
      this.byName.set(mod.name, mod);
    }
    for (const mod of modules) this.index(mod);
    this.checkNames(modules);
    const pages = pagesProblem(modules);
    if (pages) throw new ManifestError(...pages);
    for (const mod of modules) this.checkReferences(mod);
    this.modules = this.dependencyOrder(modules);
  }

  /**
   * Tables, event kinds and settings: a plugin's own sit in its namespace or are claimed; no name has two owners
   * (the core's settings and tables included), and no module claims a name in another module's namespace.
   */
  private checkNames(modules: Module[]) {
    const owners = new Map<string, string>();
    // The core's modules share the core's tables and settings: together they are one owner, "core".
    const own = (mod: Module, kind: NameKind, name: string, field: string) => {
      const owner = owners.get(`${kind}:${name}`);
      const me = mod.core ? 'core' : mod.name;
      if (owner && owner !== me) throw new ManifestError(mod.name, field, `${KIND_LABEL[kind]} "${name}" is owned by ${owner === 'core' ? 'the core' : `module "${owner}"`} already`);
      owners.set(`${kind}:${name}`, me);
    };
    for (const key of Object.keys(SettingsSchema.properties)) owners.set(`settings:${key}`, 'core');
    for (const mod of modules) {
      const undeclared = undeclaredTable(mod);
      if (undeclared) {
        throw new ManifestError(mod.name, undeclared.field, `table "${undeclared.name}" is not declared in tables: `
          + `declare its tenancy there ('org', 'shared' or 'global'; README "Org isolation")`);
      }
      const claimed = claimedNames(mod);
      for (const c of claimed) {
        // Another module's namespace is its own to fill: a claim there is refused, except a setting or secret it does
        // not declare (HOSTPROV_API_URL is the pods module's provider URL beside the hostprov module). Tables are
        // always refused: migrations may create them later without declaring them here.
        const other = modules.find((m) => m.name !== mod.name && inNamespace(m.name, c.kind, c.name)
          && (c.kind === 'tables' || ownedNames(m).some((o) => o.kind === c.kind && o.name === c.name)));
        if (other) throw new ManifestError(mod.name, c.field, `"${c.name}" is in the namespace of module "${other.name}"`);
        own(mod, c.kind, c.name, c.field);
      }
      for (const o of ownedNames(mod)) {
        if (!mod.core && !inNamespace(mod.name, o.kind, o.name) && !claimed.some((c) => c.kind === o.kind && c.name === o.name)) {
          throw new ManifestError(mod.name, o.field, `${KIND_LABEL[o.kind]} "${o.name}" is outside the module's namespace ${NAMESPACE_HINT[o.kind](mod.name)}; `
            + (o.kind === 'tables' ? 'name it so, or declare it in tables if the spec pins the name' : `name it so, or claim it in claims.${o.kind} if the spec pins the name`));
        }
        own(mod, o.kind, o.name, o.field);
      }
    }
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
      if (!mod.claims?.tools?.includes(t.name)) checkNamespace(mod, `tools[${i}].name`, t.name, '.');
      if (this.tools.has(t.name)) throw new ManifestError(mod.name, `tools[${i}].name`, `"${t.name}" is declared twice`);
      this.tools.set(t.name, { ...t, input: boundToolInput(mod.name, i, t.input), module: mod.name });
    });
    mod.integrations.forEach((integration, i) => {
      if (this.integrations.has(integration.key)) throw new ManifestError(mod.name, `integrations[${i}].key`, `"${integration.key}" is declared twice`);
      this.integrations.set(integration.key, { ...integration, module: mod.name });
      integration.secrets.forEach((s, j) => this.addSecret(mod.name, `integrations[${i}].secrets[${j}].name`, {
        name: s.name, label: s.label, writeOnly: true, module: mod.name, integration: integration.key, optional: s.optional ?? false, perKey: false,
      }));
    });
    mod.secrets.forEach((s, i) => {
      if (!mod.claims?.secrets?.includes(s.name)) checkNamespace(mod, `secrets[${i}].name`, s.name, '.');
      this.addSecret(mod.name, `secrets[${i}].name`, {
        name: s.name, label: s.label, writeOnly: s.writeOnly ?? true, module: mod.name, integration: null, optional: true, perKey: s.perKey ?? false,
      });
    });
    mod.daemons.forEach((d, i) => checkNamespace(mod, `daemons[${i}].name`, d.name, '.'));
    mod.provides.forEach((p, i) => {
      checkNamespace(mod, `provides[${i}].ref.id`, p.ref.id, '.');
      const taken = this.services.get(p.ref.id);
      if (taken) throw new ManifestError(mod.name, `provides[${i}].ref.id`, `service "${p.ref.id}" is provided by module "${taken.module}" already`);
      if ((p.impl === undefined) === (p.factory === undefined)) {
        throw new ManifestError(mod.name, `provides[${i}]`, 'give exactly one of impl and factory (use provide(ref, impl))');
      }
      this.services.set(p.ref.id, { provision: p, module: mod.name });
    });
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

  private addSecret(module: string, field: string, secret: DeclaredSecret) {
    if (this.secrets.has(secret.name)) throw new ManifestError(module, field, `secret "${secret.name}" is declared twice`);
    this.secrets.set(secret.name, secret);
  }

  private checkReferences(mod: Module) {
    mod.tools.forEach((t, i) => {
      if (this.scopes.has(t.scope)) return;
      // A scope of a module this one optionally needs: without that module the tool is not offered.
      const owner = t.scope.split(':')[0];
      if (!this.byName.has(owner) && mod.needs.some((n) => n.kind === 'module' && n.key === owner && n.optional)) {
        this.tools.delete(t.name);
        return;
      }
      throw new ManifestError(mod.name, `tools[${i}].scope`, `scope "${t.scope}" is not declared by any loaded module`);
    });
    mod.needs.forEach((n, i) => {
      if (n.kind === 'module' && !n.optional && !this.byName.has(n.key)) {
        throw new ManifestError(mod.name, `needs[${i}].key`, `needs module "${n.key}", which is not loaded (add it to PLUGINS)`);
      }
      if (n.kind === 'integration' && !this.integrations.has(n.key)) {
        throw new ManifestError(mod.name, `needs[${i}].key`, `needs integration "${n.key}", which no loaded module declares`);
      }
    });
    mod.consumes.forEach((ref, i) => {
      const provided = this.services.get(ref.id);
      if (!provided) {
        throw new ManifestError(mod.name, `consumes[${i}]`, `needs service "${ref.id}", which no loaded module provides (add the plugin that provides it to PLUGINS)`);
      }
      const offered = new Set(provided.provision.ref.methods);
      const missing = ref.methods.filter((m) => !offered.has(m));
      if (missing.length) {
        throw new ManifestError(mod.name, `consumes[${i}]`, `service "${ref.id}" of module "${provided.module}" has no method ${missing.map((m) => `"${m}"`).join(', ')}`);
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
      // A provider comes before the modules that use its services.
      for (const ref of mod.consumes) {
        const provider = this.byName.get(this.services.get(ref.id)?.module ?? '');
        if (provider && provider !== mod) visit(provider, [...path, mod.name]);
      }
      state.set(mod.name, 'done');
      ordered.push(mod);
    };
    for (const mod of modules.filter((m) => m.core)) visit(mod, []);
    for (const mod of modules) visit(mod, []);
    return ordered;
  }
}

const modulesByName = new WeakMap<Registry, ReadonlyMap<string, Module>>();

// The class has exactly the members of ModuleRegistry (declaration merging), so the registry the core builds and the
// one modules see are one type.
export interface Registry extends ModuleRegistry {}

export class Registry {
  /** Validate every manifest; a bad one throws a ManifestError naming the plugin and the field. */
  constructor(modules: Module[]) {
    const { modules: ordered, scopes, limits, tools, jobs, integrations, secrets, services, byName } = new RegistryBuilder(modules);
    Object.assign(this, { modules: ordered, scopes, limits, tools, jobs, integrations, secrets, services });
    modulesByName.set(this, byName);
  }

  get(name: string): Module | undefined {
    return modulesByName.get(this)!.get(name);
  }

  /** Is `module` on for an org? Core modules always are; an unknown module never is. */
  isEnabled(orgModules: Record<string, boolean>, module: string): boolean {
    const mod = this.get(module);
    if (!mod) return false;
    return mod.core || orgModules[module] === true;
  }
}
