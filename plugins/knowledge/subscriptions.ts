// Which submodules' shared pages matter: the submodules module's service `submodules.subscriptions`, used here only
// when a loaded module provides it (not in the manifest's `consumes`: knowledge runs without the submodules module,
// and then no shared page is crawled and no search reads one).
import { defineService, type CoreServices, type EntityManager } from '@quad/core';
import { SUBMODULE_PATTERN } from './owner.js';

/** What this module uses of `submodules.subscriptions`. */
interface SubmoduleSubscriptions {
  /** Names of the submodules the org subscribes to; [] when the submodules module is off for the org. */
  subscribedBy(em: EntityManager, orgId: number): Promise<string[]>;
  /** Names of the submodules at least one org (with the submodules module on) subscribes to. */
  withSubscribers(em: EntityManager): Promise<string[]>;
}

const subscriptionsRef = defineService<SubmoduleSubscriptions>({ id: 'submodules.subscriptions', methods: ['subscribedBy', 'withSubscribers'] });

function provider(services: CoreServices): SubmoduleSubscriptions | null {
  return services.registry.services.has(subscriptionsRef.id) ? services.service(subscriptionsRef) : null;
}

/** Distinct, and only names a shared page can have (anything else has no pages). */
const names = (list: string[]) => [...new Set(list)].filter((n) => SUBMODULE_PATTERN.test(n)).sort();

/** The submodules whose shared pages the org's search and reader see. */
export async function subscribedBy(services: CoreServices, em: EntityManager, orgId: number): Promise<string[]> {
  const subscriptions = provider(services);
  return subscriptions ? names(await subscriptions.subscribedBy(em, orgId)) : [];
}

/** The submodules whose shared pages the schedule crawls. */
export async function withSubscribers(services: CoreServices, em: EntityManager): Promise<string[]> {
  const subscriptions = provider(services);
  return subscriptions ? names(await subscriptions.withSubscribers(em)) : [];
}
