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
  });
}

/** A fresh fork bound to an org (or to none, where only unfiltered tables may be read). */
export function forkFor(orm: MikroORM, orgId?: number | null): EntityManager {
  const em = orm.em.fork();
  if (orgId != null) em.setFilterParams(ORG_FILTER, { orgId });
  return em;
}

export type { PreparedQuery, RawQuery } from './raw-query.js';

/**
 * Raw prepared SQL on the ORM's own pool, for the core's hot per-request lookups (no query builder, no entity
 * hydration). Never for org-owned data without an explicit org condition: no filter applies here.
 */
export function rawQuery(orm: MikroORM | EntityManager): RawQuery {
  return onClient(('em' in orm ? orm.em : orm).getConnection().getKnex().client);
}

/** Raw prepared SQL on the connection `em` works on: its transaction's when it has one, else the pool's. */
export function rawQueryOn(em: EntityManager): RawQuery {
  return onClient((em.getTransactionContext<Knex.Transaction>() ?? em.getConnection().getKnex()).client);
}
