// MikroORM for PostgreSQL: one ORM per process; requests, jobs and tool calls each work on a fork.
import { MikroORM, type EntityManager, type Knex } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import type { EntitySchema } from '@mikro-orm/core';
import { Organization } from '../entities/organization.js';
import { AuditEntry, ErrorEntry, JobRun, Notification } from '../entities/logs.js';
import { ORG_FILTER } from './org-owned.js';
import type { Module } from '../modules/types.js';
import { onClient, type RawQuery } from './raw-query.js';
import { QuadPostgreSqlDriver } from './prepared-finds.js';
import { QuadEntityManager } from './entity-manager.js';
import { DeferredTransaction } from './deferred-transaction.js';
import { OrgBinding, type IsolationLevel } from './org-binding.js';

export const coreEntities: EntitySchema<any, any>[] = [Organization, Notification, AuditEntry, ErrorEntry, JobRun];

interface OrmOptions {
  url: string; modules: readonly Module[]; poolMax: number; debug?: boolean;
  /**
   * The name its transactions are found by in the async context (MikroORM's contextName). A second ORM in the same
   * process (a test's own, as the owner) takes another name, so that work inside one's transaction never resolves
   * the other's EntityManager as the current one.
   */
  contextName?: string;
}

export async function openOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

/** The same ORM, made at once and connected on its first statement (a test's own view of its database). */
export function openOrmLazily(options: OrmOptions): MikroORM {
  return MikroORM.initSync(ormConfig(options));
}

function ormConfig(options: OrmOptions) {
  return {
    clientUrl: options.url,
    ...(options.contextName && { contextName: options.contextName }),
    driver: QuadPostgreSqlDriver,
    entityManager: QuadEntityManager,
    entities: [...coreEntities, ...options.modules.flatMap((m) => m.entities)],
    pool: { min: 0, max: options.poolMax },
    debug: options.debug ?? false,
    // Request and job work must use a fork; the global EntityManager refuses it.
    allowGlobalContext: false,
    discovery: { warnWhenNoEntities: false },
    schemaGenerator: { ignoreSchema: ['graphile_worker'] },
    forceUtcTimezone: true,
    // Pipelined connections: an org-bound statement is written behind BEGIN and its binding, not after their
    // answers (org-binding.ts). pg still answers every statement in order, each its own.
    driverOptions: { connection: { pipeline: true } },
  };
}

/** The ORM's knex client: its pool of connections. */
export const poolClient = (orm: MikroORM): Knex.Client => orm.em.getConnection().getKnex().client;

/** An explicit transaction of an org-bound EntityManager: bound to its org, begun with its first statement. */
const beginBoundTransaction = (pool: Knex.Client) => async (orgId: number, isolation?: IsolationLevel) =>
  new DeferredTransaction(pool, orgId, isolation).knexTransaction();

/**
 * A fresh fork bound to an org: its statements run in transactions bound to the org (org-binding.ts) and its finds
 * add the org filter. Without an org, only tables of no org may be used.
 */
export function forkFor(orm: MikroORM, orgId?: number | null): EntityManager {
  // Of the ORM itself, never of a transaction running around the call (MikroORM's context resolution would fork
  // that transaction's EntityManager, with its driver and its org).
  const em = orm.em.fork({ disableContextResolution: true });
  return orgId == null ? em : bindToOrg(orm, em, orgId);
}

/** Bind a fork made before its org was known (outside any transaction) to the org. */
export function bindToOrg(orm: MikroORM, em: EntityManager, orgId: number): EntityManager {
  return bindOn(poolClient(orm), em, orgId);
}

/**
 * A fresh fork of `em`'s ORM bound to `orgId`: for a core service asked about an org its caller's EntityManager is
 * not bound to (a superadmin's, the cross-org path's). Outside the caller's transaction.
 */
export function forkBoundTo(em: EntityManager, orgId: number): EntityManager {
  const fork = em.fork({ clear: true, useContext: false, keepTransactionContext: false, disableContextResolution: true });
  return bindOn(em.getConnection().getKnex().client, fork, orgId);
}

/** The org filter and the binding of `orgId` (on `pool`'s connections) for `em`. */
function bindOn(pool: Knex.Client, em: EntityManager, orgId: number): EntityManager {
  em.setFilterParams(ORG_FILTER, { orgId });
  return (em as QuadEntityManager).bindOrg(bindingOf(pool, orgId));
}

/** Orgs' bindings per pool, kept for the orgs bound most recently: a binding holds no state of a unit of work, and
 *  making one (a client and its closures) cost more than the rest of binding a request's fork. */
const bindings = new WeakMap<Knex.Client, LRUCache<number, OrgBinding>>();

function bindingOf(pool: Knex.Client, orgId: number): OrgBinding {
  let ofPool = bindings.get(pool);
  if (!ofPool) bindings.set(pool, (ofPool = new LRUCache({ max: 5000 })));
  let binding = ofPool.get(orgId);
  if (!binding) ofPool.set(orgId, (binding = new OrgBinding(orgId, pool, beginBoundTransaction(pool))));
  return binding;
}

export type { PreparedQuery, RawQuery } from './raw-query.js';

/**
 * Raw prepared SQL on the ORM's own pool, for the core's hot per-request lookups (no query builder, no entity
 * hydration). Never for org-owned data without an explicit org condition: no filter applies here.
 */
export function rawQuery(orm: MikroORM | EntityManager): RawQuery {
  return onClient(('em' in orm ? orm.em : orm).getConnection().getKnex().client);
}

export { rawQueryOn } from './raw-query.js';
