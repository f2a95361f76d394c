// Module switches of an org: the Explore listing (with needs and whether they are connected) and switching
// modules on or off. A module cannot be switched on until its needs are connected, nor off while an enabled
// module needs it. Switching off keeps the module's data.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Organization } from '../entities/organization.js';
import { recordAudit } from '../events/audit.js';
import { badRequest, conflict } from '../http/errors.js';
import type { Registry } from '../modules/registry.js';
import type { Module, NeedDecl } from '../modules/types.js';
import { pagesView } from '../modules/pages.js';
import type { SecretsService as SecretStore } from '../core-services.js';
import type { OrgSnapshot } from './org-cache.js';
import type { SubmoduleReaders } from './submodule-readers.js';

export interface NeedStatus { key: string; label: string; kind: NeedDecl['kind']; optional: boolean; connected: boolean }

export interface ModuleListing {
  name: string;
  title: string;
  description: string;
  category: string;
  /** Add or Remove is possible now: the module is on, or its needs are connected. */
  switchable: boolean;
  enabled: boolean;
  /** Every required need is connected. */
  ready: boolean;
  needs: NeedStatus[];
  submodules: { name: string; title: string }[];
}

/** The switches a new org starts with: every module that declares `defaultEnabled`. */
export function defaultModules(registry: Registry): Record<string, boolean> {
  return Object.fromEntries(registry.modules.filter((m) => !m.core && m.defaultEnabled).map((m) => [m.name, true]));
}

/** A need's status, given the org's switches and its connected integrations. */
function needStatus(registry: Registry, switches: Record<string, boolean>, integrations: ReadonlySet<string>, need: NeedDecl): NeedStatus {
  const connected = need.kind === 'module' ? registry.isEnabled(switches, need.key) : integrations.has(need.key);
  return { key: need.key, label: need.label, kind: need.kind, optional: need.optional ?? false, connected };
}

/** `submodules`: per module, the submodules it reads (submodule-readers.ts); none when left out. */
export async function listModules(em: EntityManager, registry: Registry, secrets: SecretStore, org: Pick<OrgSnapshot, 'id' | 'modules'>, submodules: SubmoduleReaders = {}) {
  const optional = registry.modules.filter((m) => !m.core);
  const integrations = await secrets.connectedIntegrations(em, org.id);
  const modules: ModuleListing[] = [];
  for (const mod of optional) {
    const needs = mod.needs.map((n) => needStatus(registry, org.modules, integrations, n));
    const enabled = registry.isEnabled(org.modules, mod.name);
    const ready = needs.every((n) => n.optional || n.connected);
    modules.push({
      name: mod.name, title: mod.title, description: mod.description, category: mod.category,
      switchable: enabled || ready, enabled, ready, needs, submodules: submodules[mod.name] ?? [],
    });
  }
  return { modules, categories: [...new Set(optional.map((m) => m.category))].sort() };
}

/** The listing as the dashboard reads it: each module's pages, and the core modules (always on) under `included`. */
export function withPages(listing: Awaited<ReturnType<typeof listModules>>, registry: Registry) {
  return {
    ...listing,
    modules: listing.modules.map((m) => ({ ...m, pages: pagesView(registry.get(m.name)!) })),
    included: registry.modules.filter((m) => m.core)
      .map((m) => ({ name: m.name, title: m.title, description: m.description, category: m.category, pages: pagesView(m) })),
  };
}

export interface SwitchResult { changed: Record<string, boolean>; modules: Record<string, boolean> }

/**
 * Apply `{ name: on }` switches in one transaction (row lock on the org, so concurrent switches do not lose
 * each other's changes). 400 for unknown or core modules; 409 when a module's needs are missing or an
 * enabled module needs one being switched off.
 */
export async function switchModules(em: EntityManager, registry: Registry, secrets: SecretStore, orgId: number, wanted: Record<string, boolean>): Promise<SwitchResult> {
  for (const [name, on] of Object.entries(wanted)) {
    const mod = registry.get(name);
    if (!mod) throw badRequest(`Unknown module "${name}"`, 'unknown_module', { module: name });
    if (mod.core) throw badRequest(`"${name}" is a core module and is always on`, 'core_module', { module: name });
    if (typeof on !== 'boolean') throw badRequest(`modules.${name} must be true or false`, 'validation');
  }
  return em.transactional(async (tem) => {
    const org = await tem.findOneOrFail(Organization, { id: orgId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const next = { ...org.modules, ...wanted };
    const turningOn = Object.entries(wanted).filter(([name, on]) => on && !registry.isEnabled(org.modules, name)).map(([n]) => registry.get(n)!);
    const integrations = turningOn.length ? await secrets.connectedIntegrations(tem, orgId) : new Set<string>();
    for (const mod of turningOn) {
      const missing = mod.needs.filter((n) => !n.optional).map((n) => needStatus(registry, next, integrations, n)).filter((n) => !n.connected);
      if (missing.length) {
        throw conflict(`${mod.title} needs ${missing.map((m) => m.label).join(', ')} first`, 'needs_missing', {
          module: mod.name, missing: missing.map(({ key, label, kind }) => ({ key, label, kind })),
        });
      }
    }
    const turningOff = Object.entries(wanted).filter(([name, on]) => !on && registry.isEnabled(org.modules, name)).map(([n]) => n);
    for (const name of turningOff) {
      const dependents = registry.modules.filter((m: Module) => registry.isEnabled(next, m.name) && m.needs.some((n) => n.kind === 'module' && n.key === name && !n.optional));
      if (dependents.length) {
        throw conflict(`${dependents.map((d) => d.title).join(', ')} need${dependents.length === 1 ? 's' : ''} ${registry.get(name)!.title}; switch ${dependents.length === 1 ? 'it' : 'them'} off first`, 'needed_by', {
          module: name, needed_by: dependents.map((d) => d.name),
        });
      }
    }
    const changed = Object.fromEntries(Object.entries(wanted).filter(([name, on]) => registry.isEnabled(org.modules, name) !== on));
    org.modules = next;
    await tem.flush();
    return { changed, modules: next };
  });
}

/**
 * Switch modules as an officer (or the operator CLI) does: the switches, and `org.modules` in the audit log when
 * something changed, in one transaction.
 */
export async function switchModulesAudited(em: EntityManager, registry: Registry, secrets: SecretStore, orgId: number, wanted: Record<string, boolean>, actor: string): Promise<SwitchResult> {
  return em.transactional(async (tem) => {
    const switched = await switchModules(tem, registry, secrets, orgId, wanted);
    if (Object.keys(switched.changed).length) {
      await recordAudit(tem, { orgId, actor, action: 'org.modules', details: { changed: switched.changed } });
    }
    return switched;
  });
}
