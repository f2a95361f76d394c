// What the core adds to Fastify's request and instance types.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { AuthPolicy } from '../modules/types.js';
import type { CoreServices } from '../core-services.js';
import type { OrgCache, OrgSnapshot } from '../orgs/org-cache.js';
import type { OrgDb } from '../db/org-db.js';

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
    /** Every route registered so far (method, url, config with its module and auth policy, schema), in order. */
    registeredRoutes: readonly import('fastify').RouteOptions[];
  }
  interface FastifyRequest {
    /** A fork for this request; bound to its org (org filter and transactions) once the org is resolved. */
    em: EntityManager;
    /** The org-bound handle of this request (org-db.ts), on `em`'s transaction; only on routes with an org. */
    db: OrgDb;
    /** The org named in the URL (`:org`, by prefix or id), or null on routes without one. */
    org: OrgSnapshot | null;
    caller: Caller | null;
    /**
     * Record an action of this request's caller in its org's audit log, in the transaction of `em` (the one that
     * makes the change): actor and org come from the request.
     */
    audit(em: EntityManager, action: string, details?: Record<string, unknown>): Promise<void>;
  }
  interface FastifyContextConfig {
    /** Who may call the route. Required: a route without it refuses to boot. */
    auth?: AuthPolicy;
    /** Set by the core: the module that declared the route. */
    module?: string;
    /**
     * Other modules that open this route too: it answers while the declaring module or any of these is on for the
     * org (a route the spec lists under two modules, such as hosting/providers of pods and hosting). Default: none.
     */
    openWith?: string[];
    /**
     * A count limit of the route's module that each call creates one more of: the route runs in one transaction
     * that reserves it first (409 `limit_reached` when full). Default: none.
     */
    countLimit?: string;
    /**
     * Set by the core: the route names no org (no `:org`) and takes machine tokens only, so its org is the token's,
     * bound (with the module gate) before the handler runs.
     */
    tokenOrg?: boolean;
  }
}
