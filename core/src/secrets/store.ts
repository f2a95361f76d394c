// Org secrets (to be completed): encrypted with SECRETS_KEY, write-only over the API.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Registry } from '../modules/registry.js';

export class SecretStore {
  constructor(readonly registry: Registry, readonly keys: string[]) {}

  async get(_em: EntityManager, _orgId: number, _name: string): Promise<string | null> {
    throw new Error('secret store: get() is being written');
  }

  async set(_em: EntityManager, _orgId: number, _name: string, _value: string): Promise<void> {
    throw new Error('secret store: set() is being written');
  }

  async names(_em: EntityManager, _orgId: number): Promise<Set<string>> {
    throw new Error('secret store: names() is being written');
  }

  /** Is every required secret of the integration set for the org? */
  async connected(em: EntityManager, orgId: number, integration: string): Promise<boolean> {
    const decl = this.registry.integrations.get(integration);
    if (!decl) return false;
    const set = await this.names(em, orgId);
    return decl.secrets.every((s) => s.optional || set.has(s.name));
  }
}
