// What the core adds to Fastify's request and instance types.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { AuthPolicy } from '../modules/types.js';
import type { CoreServices } from '../services.js';
import type { OrgCache, OrgSnapshot } from '../orgs/org-cache.js';

/** The authenticated caller of a request; set by the auth policy hook. */
export interface Caller {
  /** officer, member, machine, … (credential kinds are added by the auth layer). */
  kind: string;
  /** Stable id for logs and the audit log, e.g. `officer:1234`. */
  actor: string;
  [key: string]: unknown;
}

declare module 'fastify' {
  interface FastifyInstance {
    quad: CoreServices & { orm: MikroORM };
    /** Orgs by prefix or id, cached per process and invalidated through NOTIFY. */
    orgs: OrgCache;
  }
  interface FastifyRequest {
    /** A fork for this request; its org filter is bound once the org in the URL is resolved. */
    em: EntityManager;
    /** The org named in the URL (`:org`, by prefix or id), or null on routes without one. */
    org: OrgSnapshot | null;
    caller: Caller | null;
  }
  interface FastifyContextConfig {
    /** Who may call the route. Required: a route without it refuses to boot. */
    auth?: AuthPolicy;
    /** Set by the core: the module that declared the route. */
    module?: string;
  }
}
