// The service `podhost.provider`: the org's pod provider for other modules (the hosting module, hostprov, makes its
// apps' pods with it), so the provider adapter has one home. Plugins never import each other, so the adapter's error
// classes cannot cross: every failure leaves as a plain Error with `kind` 'refused' (the provider's 4xx: `status`
// and its `reason`) or 'failed' (5xx, timeout, unreachable, unreadable answer), its message never carrying the key.
import { defineService, type CoreServices, type EntityManager } from '@quad/core';
import { providerWithKey } from '../pods.js';
import { ProviderFailed, ProviderRefused, type PodProvider } from './types.js';

/** A provider failure as other modules see it. */
export interface PodProviderError extends Error {
  kind: 'refused' | 'failed';
  /** The provider's HTTP status when it refused. */
  status?: number;
  /** The provider's own words when it refused. */
  reason?: string;
}

export interface PodProviderService {
  /** The org's provider (its own API key, the org secret hostprov_api_key), or null when the org has not set it. */
  forOrg(em: EntityManager, orgId: number): Promise<PodProvider | null>;
}

export const podProviderRef = defineService<PodProviderService>({
  id: 'podhost.provider',
  description: 'The org\'s pod provider (list, get, create, update, start, stop, restart, delete pods); failures carry kind refused or failed',
  methods: ['forOrg'],
});

/** The adapter's error as a plain one with `kind`; anything else passes unchanged. */
export function toServiceError(err: unknown): unknown {
  if (err instanceof ProviderRefused) {
    return Object.assign(new Error(err.message), { name: 'PodProviderError', kind: 'refused' as const, status: err.status, reason: err.reason });
  }
  if (err instanceof ProviderFailed) return Object.assign(new Error(err.message), { name: 'PodProviderError', kind: 'failed' as const });
  return err;
}

/** Each method of the provider, its failures translated. */
function translated(provider: PodProvider): PodProvider {
  const wrap = <A extends unknown[], R>(call: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    try {
      return await call(...args);
    } catch (err) {
      throw toServiceError(err);
    }
  };
  return {
    list: wrap(() => provider.list()),
    get: wrap((id: string) => provider.get(id)),
    create: wrap((spec) => provider.create(spec)),
    update: wrap((id: string, patch) => provider.update(id, patch)),
    start: wrap((id: string) => provider.start(id)),
    stop: wrap((id: string) => provider.stop(id)),
    restart: wrap((id: string) => provider.restart(id)),
    delete: wrap((id: string) => provider.delete(id)),
  };
}

export function podProviderService(services: CoreServices): PodProviderService {
  return {
    async forOrg(em, orgId) {
      const provider = await providerWithKey(services, em, orgId);
      return provider && translated(provider);
    },
  };
}
