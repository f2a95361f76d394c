// The limits engine (to be completed): count limits (409) and rate limits (429) declared by manifests.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Registry } from '../modules/registry.js';

export interface LimitValue { value: number | null; source: 'override' | 'setting' | 'default' }

export class LimitsEngine {
  constructor(readonly registry: Registry, readonly raw: (name: string) => unknown) {}

  async value(_em: EntityManager, _orgId: number, _key: string): Promise<LimitValue> {
    throw new Error('limits engine: value() is being written');
  }

  async consume(_em: EntityManager, _orgId: number, _key: string, _amount = 1): Promise<void> {
    throw new Error('limits engine: consume() is being written');
  }

  async reserve(_em: EntityManager, _orgId: number, _key: string, _amount = 1): Promise<void> {
    throw new Error('limits engine: reserve() is being written');
  }
}
