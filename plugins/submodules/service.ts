// The services this module provides. `submodules.subscriptions` (the issue-19 contract): which submodules an org
// subscribes to and which have subscribers — the knowledge module crawls and searches the shared pages of those — and
// the feed presets an org's subscriptions offer the feeds module; names of submodules no longer in SUBMODULES_PACKAGES
// are left out. `submodules.catalog`: the list and subscribing, for the knowledge module's alias tools.
import { defineService, notFound, type CoreServices, type EntityManager } from '@quad/core';
import { catalogOf } from './catalog.js';
import { findSubmodule } from './queries/run.js';
import { catalogFor } from './records.js';
import { subscribe, subscribedNames } from './subscriptions.js';
import { MODULE } from './settings.js';

export interface FeedPreset {
  submodule: string;
  key: string;
  title: string;
  description: string;
  kind: 'repo_jobs' | 'hackathons';
  config: Record<string, unknown>;
}

export interface SubmoduleSubscriptions {
  /** Names of the submodules the org subscribes to; [] when the submodules module is off for the org. */
  subscribedBy(em: EntityManager, orgId: number): Promise<string[]>;
  /** Names of the submodules at least one org (with the submodules module on) subscribes to. */
  withSubscribers(em: EntityManager): Promise<string[]>;
  /** Feed presets of the submodules the org subscribes to (same on/off rule as subscribedBy). */
  feedPresets(em: EntityManager, orgId: number): Promise<FeedPreset[]>;
}

export const submoduleSubscriptions = defineService<SubmoduleSubscriptions>({
  id: 'submodules.subscriptions',
  methods: ['subscribedBy', 'withSubscribers', 'feedPresets'],
  description: 'Which submodules an org subscribes to, which have subscribers, and the feed presets of an org\'s subscriptions',
});

export function subscriptionsFor(services: CoreServices): SubmoduleSubscriptions {
  const known = async (names: string[]) => {
    const catalog = await catalogOf(services);
    return names.filter((n) => catalog.get(n));
  };
  return {
    subscribedBy: async (em, orgId) => known(await subscribedNames(em, orgId)),
    async withSubscribers(em) {
      // Every org's rows (a cross-org read in raw SQL): only names leave this function.
      const rows: { submodule: string }[] = await em.execute(
        `select distinct s.submodule from submodules_subscriptions s join organizations o on o.id = s.organization_id
         where (o.modules ->> '${MODULE}') = 'true' order by s.submodule`);
      return known(rows.map((r) => r.submodule));
    },
    async feedPresets(em, orgId) {
      const catalog = await catalogOf(services);
      return (await subscribedNames(em, orgId)).flatMap((name) => (catalog.get(name)?.feeds ?? [])
        .map((f) => ({ submodule: name, key: f.key, title: f.title, description: f.description, kind: f.kind, config: structuredClone(f.config) })));
    },
  };
}

export interface SubmoduleCatalog {
  /** The org's list, as GET /api/submodules answers it (404 `module_off` while the module is off for the org). */
  list(em: EntityManager, orgId: number): Promise<unknown>;
  /**
   * Subscribe the org (or again: the shared pages are brought up to date), audited as `actor`: `created` is false
   * when it subscribed already. 404 `unknown_submodule` or `module_off`; 409 over the limit.
   */
  subscribe(em: EntityManager, orgId: number, submodule: string, actor: string): Promise<{ created: boolean; submodule: string; subscribed_at: string }>;
}

/** For the knowledge module's spec-named aliases knowledge.submodules and knowledge.sync_submodule (README "Services"). */
export const submoduleCatalog = defineService<SubmoduleCatalog>({
  id: 'submodules.catalog',
  methods: ['list', 'subscribe'],
  description: 'The submodules list of an org and subscribing, for tools of other modules that alias them',
});

export function catalogServiceFor(services: CoreServices): SubmoduleCatalog {
  /** The org's switches; 404 while the module is off for it (as its routes and tools answer). */
  const orgOn = async (em: EntityManager, orgId: number) => {
    const [org]: { modules: Record<string, boolean> }[] = await em.execute('select modules from organizations where id = ?', [orgId]);
    if (!org || !services.registry.isEnabled(org.modules, MODULE)) throw notFound(`The ${MODULE} module is off for this org`, 'module_off');
    return { id: orgId, modules: org.modules };
  };
  return {
    list: async (em, orgId) => catalogFor(em, services, await orgOn(em, orgId)),
    async subscribe(em, orgId, name, actor) {
      await orgOn(em, orgId);
      const submodule = findSubmodule(await catalogOf(services), name);
      const done = await subscribe(em, services, orgId, submodule, actor);
      return { created: done.created, submodule: submodule.name, subscribed_at: done.subscribed_at.toISOString() };
    },
  };
}
