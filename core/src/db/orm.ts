// MikroORM for PostgreSQL: one ORM per process; requests, jobs and tool calls each work on a fork.
import { MikroORM, type EntityManager, type Knex } from '@mikro-orm/postgresql';
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

export async function openOrm(options: { url: string; modules: readonly Module[]; poolMax: number; debug?: boolean }): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: options.url,
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
  });
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
  const em = orm.em.fork();
  return orgId == null ? em : bindToOrg(orm, em, orgId);
}

/** Bind a fork made before its org was known (outside any transaction) to the org. */
export function bindToOrg(orm: MikroORM, em: EntityManager, orgId: number): EntityManager {
  em.setFilterParams(ORG_FILTER, { orgId });
  const pool = poolClient(orm);
  return (em as QuadEntityManager).bindOrg(new OrgBinding(orgId, pool, beginBoundTransaction(pool)));
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
