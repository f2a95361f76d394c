// Orgs by prefix or id, cached per process so an org route needs no database read to find its org. A trigger
// NOTIFYs every change (migrations/0003), the process that changes an org drops it at once, and entries expire
// after 30 s regardless. While the listener is down the cache is bypassed.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgListener } from '../db/listener.js';
import { Organization, type OrganizationEntity } from '../entities/organization.js';
import { INT4_MAX, isOrgRef } from '../http/schemas.js';

export const ORG_CHANGED_CHANNEL = 'quad_org_changed';
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/**
 * The org of a request: a frozen snapshot, shared by the requests of one process. Write with
 * `organization: request.org.id`; change the org itself by loading it with `em.findOne(Organization, id)`.
 */
export type OrgSnapshot = Readonly<Omit<OrganizationEntity, 'modules' | 'config'>> & {
  readonly modules: Readonly<Record<string, boolean>>;
  readonly config: Readonly<Record<string, unknown>>;
};

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !(value instanceof Date) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function orgSnapshot(org: OrganizationEntity): OrgSnapshot {
  return deepFreeze({ ...structuredClone({ ...org }) }) as OrgSnapshot;
}

export class OrgCache {
  private readonly entries = new Map<string, { org: OrgSnapshot; expires: number }>();

  constructor(private readonly listener: PgListener) {
    listener.subscribe({
      channel: ORG_CHANGED_CHANNEL,
      onMessage: (payload) => this.invalidate(Number(payload)),
      onConnect: async () => this.entries.clear(),
    });
  }

  /** The org named by a prefix or numeric id; null when there is none. */
  async find(em: EntityManager, ref: string): Promise<OrgSnapshot | null> {
    // Neither a malformed reference nor an id beyond `serial` names an org; PostgreSQL would refuse some of them.
    if (!isOrgRef(ref)) return null;
    const byId = /^\d+$/.test(ref);
    if (byId && Number(ref) > INT4_MAX) return null;
    const key = byId ? `id:${Number(ref)}` : `prefix:${ref.toLowerCase()}`;
    const hit = this.listener.healthy ? this.entries.get(key) : undefined;
    if (hit && hit.expires > Date.now()) return hit.org;
    const found = await em.findOne(Organization, byId ? { id: Number(ref) } : { prefix: ref.toLowerCase() });
    if (!found) return null;
    const org = orgSnapshot(found);
    if (this.listener.healthy) this.store(org);
    return org;
  }

  private store(org: OrgSnapshot) {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const entry = { org, expires: Date.now() + TTL_MS };
    this.entries.set(`id:${org.id}`, entry);
    this.entries.set(`prefix:${org.prefix}`, entry);
  }

  /** Forget an org (after changing it; other processes hear the trigger's NOTIFY). */
  invalidate(orgId: number) {
    for (const [key, entry] of this.entries) if (entry.org.id === orgId) this.entries.delete(key);
  }
}
