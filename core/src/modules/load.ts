// The modules a Quad loads: the core's own and the configured plugins, checked into one registry with every
// module's settings. Kept apart from quad.ts (which starts the API and the worker) so that the operator's commands,
// which need the registry and the database only, load neither Fastify nor the job runner.
import { ConfigError, type ConfigSource, loadSettings, settingNames } from '../config/load.js';
import { SettingsSchema, type Settings } from '../config/schema.js';
import { coreModule } from '../core-module.js';
import { authModule, tokensModule } from '../auth/module.js';
import { limitsModule } from '../limits/module.js';
import { LimitsEngine } from '../limits/engine.js';
import { orgModule } from '../orgs/module.js';
import { mcpModule, modulesModule } from '../tools/module.js';
import { adminModule } from '../admin/module.js';
import { secretsModule } from '../secrets/module.js';
import { eventsModule } from '../events/module.js';
import { dashboardModule } from '../dashboard/module.js';
import { parsePrivateAllowance } from '../net/private-allowance.js';
import { importPlugin, markShippedInCore, Registry } from './registry.js';
import type { Module } from './types.js';

/** Modules every Quad has, always on; the only modules that may declare `core: true`. */
export const CORE_MODULES: readonly Module[] = markShippedInCore([
  coreModule, authModule, tokensModule, orgModule, adminModule, limitsModule, secretsModule, mcpModule, modulesModule, eventsModule, dashboardModule,
]);

/** The plugins to load: PLUGINS (which replaces the default list), then PLUGINS_EXTRA; each once. */
export function pluginSpecs(settings: Pick<Settings, 'PLUGINS' | 'PLUGINS_EXTRA'>): string[] {
  return [...new Set([...settings.PLUGINS, ...settings.PLUGINS_EXTRA])];
}

/**
 * Load the plugins and build the registry; resolve every module's settings. One error lists every bad setting;
 * `warnings` holds a line per old setting name in use, for the caller's log.
 */
export async function loadRegistry(source: ConfigSource, extra: Module[] = []) {
  const problems: string[] = [];
  const collect = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ConfigError) problems.push(...err.problems);
      else throw err;
      return undefined;
    }
  };
  const settings = collect(() => loadSettings(source));
  const plugins = settings ? await Promise.all(pluginSpecs(settings).map((spec) => importPlugin(spec))) : [];
  const registry = new Registry([...CORE_MODULES, ...plugins, ...extra]);
  const moduleSettings = new Map<string, Record<string, unknown>>();
  const known = new Set(settingNames(SettingsSchema));
  for (const mod of registry.modules) {
    if (!mod.settings) continue;
    settingNames(mod.settings).forEach((k) => known.add(k));
    const values = collect(() => source.resolve(mod.settings!));
    if (values) moduleSettings.set(mod.name, values);
  }
  if (settings?.METRICS_PORT !== undefined && !settings.METRICS_TOKEN) {
    problems.push('METRICS_PORT: needs METRICS_TOKEN (the listener serves the metrics to that bearer token only); set it, or unset METRICS_PORT');
  }
  if (settings) problems.push(...parsePrivateAllowance(settings.ALLOWED_PRIVATE_ADDRESSES).problems);
  problems.push(...source.unknownSettings(known));
  problems.push(...new LimitsEngine(registry, (n) => source.raw(n)).settingProblems());
  if (problems.length) throw new ConfigError(problems);
  return { settings: settings!, registry, moduleSettings, warnings: source.warnings() };
}

