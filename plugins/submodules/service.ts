// The services this module provides. `submodules.subscriptions` (the issue-19 contract): which submodules an org
// subscribes to and which have subscribers — the knowledge module crawls and searches the shared pages of those — and
// the feed presets an org's subscriptions offer the feeds module; names of submodules no longer in SUBMODULES_PACKAGES
// are left out. The methods about one org take an EntityManager bound to that org (a route's, a tool's, a job's) and
// read through its handle; withSubscribers reads every org's rows through services.acrossOrgs.
import { defineService, orgDbFor, type CoreServices, type EntityManager } from '@quad/core';
import { catalogOf } from './catalog.js';
import { namesWithSubscribers, subscribedNames } from './subscriptions.js';

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
  /** Names of the submodules at least one org (with the submodules module on) subscribes to (`em` is not used: the
   *  read is across orgs). */
  withSubscribers(em: EntityManager): Promise<string[]>;
  /** Feed presets of the submodules the org subscribes to (same on/off rule as subscribedBy). */
  feedPresets(em: EntityManager, orgId: number): Promise<FeedPreset[]>;
  /** Per module, the submodules it reads a part of (the core's module listing shows them). */
  readers(): Promise<Record<string, { name: string; title: string }[]>>;
}

export const submoduleSubscriptions = defineService<SubmoduleSubscriptions>({
  id: 'submodules.subscriptions',
  methods: ['subscribedBy', 'withSubscribers', 'feedPresets', 'readers'],
  description: 'Which submodules an org subscribes to, which have subscribers, and the feed presets of an org\'s subscriptions',
});


export function subscriptionsFor(services: CoreServices): SubmoduleSubscriptions {
  const known = async (names: string[]) => {
    const catalog = await catalogOf(services);
    return names.filter((n) => catalog.get(n));
  };
  return {
    subscribedBy: async (em, orgId) => known(await subscribedNames(orgDbFor(em, orgId))),
    withSubscribers: async () => known(await namesWithSubscribers(services)),
    async feedPresets(em, orgId) {
      const catalog = await catalogOf(services);
      return (await subscribedNames(orgDbFor(em, orgId))).flatMap((name) => (catalog.get(name)?.feeds ?? [])
        .map((f) => ({ submodule: name, key: f.key, title: f.title, description: f.description, kind: f.kind, config: structuredClone(f.config) })));
    },
    async readers() {
      const byModule: Record<string, { name: string; title: string }[]> = {};
      for (const s of (await catalogOf(services)).list) {
        for (const module of new Set(Object.values(s.readers).flat())) (byModule[module] ??= []).push({ name: s.name, title: s.title });
      }
      return byModule;
    },
  };
}
