// Orgs by prefix or id, cached per process so an org route needs no database read to find its org. A trigger
// NOTIFYs every change (migrations/0003), the process that changes an org drops it at once, and entries expire
// after 30 s regardless; past 10,000 keys the least recently used go first. While the listener is down the cache is bypassed. A miss is one prepared statement on the
// pool (no ORM: this runs on the request path of every org route).
import { LRUCache } from 'lru-cache';
import type { PgListener } from '../db/listener.js';
import type { RawQuery } from '../db/raw-query.js';
import type { OrganizationEntity } from '../entities/organization.js';
import { INT4_MAX, isOrgRef } from '../http/schemas.js';

export const ORG_CHANGED_CHANNEL = 'quad_org_changed';
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/** The columns of `organizations`, named as the entity's properties. */
const ORG_COLUMNS = `id, prefix, name, discord_guild_id as "discordGuildId", officer_role_id as "officerRoleId", description,
  points_per_message as "pointsPerMessage", points_cooldown_seconds as "pointsCooldownSeconds", modules, config, publisher,
  created_at as "createdAt"`;
type OrgRow = Omit<OrganizationEntity, 'createdAt'> & { createdAt: string | Date };
const BY_ID = { name: 'quad_org_by_id', text: `select ${ORG_COLUMNS} from organizations where id = $1` };
const BY_PREFIX = { name: 'quad_org_by_prefix', text: `select ${ORG_COLUMNS} from organizations where prefix = $1` };

/**
 * The org of a request: a frozen snapshot, shared by the requests of one process. Write with
 * `organization: request.org.id`; change the org itself by loading it with `em.findOne(Organization, id)`.
 */
export type OrgSnapshot = Readonly<Omit<OrganizationEntity, 'modules' | 'config'>> & {
  readonly modules: Readonly<Record<string, boolean>>;
  readonly config: Readonly<Record<string, unknown>>;
};

const isId = (ref: string) => /^\d+$/.test(ref);
const keyOf = (ref: string) => (isId(ref) ? `id:${Number(ref)}` : `prefix:${ref.toLowerCase()}`);

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !(value instanceof Date) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A row read here is this cache's own (pg parsed its JSON afresh): frozen as it is, with no copy. */
function orgSnapshot(row: OrgRow): OrgSnapshot {
  return deepFreeze({ ...row, createdAt: new Date(row.createdAt) }) as OrgSnapshot;
}

export class OrgCache {
  /** Each org under two keys (`id:<id>`, `prefix:<prefix>`). */
  private readonly entries = new LRUCache<string, OrgSnapshot>({ max: MAX_ENTRIES, ttl: TTL_MS });

  constructor(private readonly listener: PgListener, private readonly query: RawQuery) {
    listener.subscribe({
      channel: ORG_CHANGED_CHANNEL,
      onMessage: (payload) => this.invalidate(Number(payload)),
      onConnect: async () => this.entries.clear(),
    });
  }

  /** The org named by a prefix or numeric id; null when there is none. */
  async find(ref: string): Promise<OrgSnapshot | null> {
    return this.cached(ref) ?? this.load(ref);
  }

  /** The org when this process holds it (no promise: the request path tries this first); undefined otherwise. */
  cached(ref: string): OrgSnapshot | undefined {
    return this.listener.healthy && isOrgRef(ref) ? this.entries.get(keyOf(ref)) : undefined;
  }

  private async load(ref: string): Promise<OrgSnapshot | null> {
    // Neither a malformed reference nor an id beyond `serial` names an org; PostgreSQL would refuse some of them.
    if (!isOrgRef(ref)) return null;
    const byId = isId(ref);
    if (byId && Number(ref) > INT4_MAX) return null;
    const [row] = await this.query<OrgRow>(byId ? { ...BY_ID, values: [Number(ref)] } : { ...BY_PREFIX, values: [ref.toLowerCase()] });
    if (!row) return null;
    // The ORM's pool hands timestamps over as text (MikroORM parses them itself).
    const org = orgSnapshot(row);
    if (this.listener.healthy) this.store(org);
    return org;
  }

  private store(org: OrgSnapshot) {
    this.entries.set(`id:${org.id}`, org);
    this.entries.set(`prefix:${org.prefix}`, org);
  }

  /** Forget an org (after changing it; other processes hear the trigger's NOTIFY). */
  invalidate(orgId: number) {
    // Both keys, even after a rename: the prefix key is the one the org had when it was cached.
    const keys = [...this.entries.entries()].filter(([, org]) => org.id === orgId).map(([key]) => key);
    for (const key of keys) this.entries.delete(key);
  }
}
