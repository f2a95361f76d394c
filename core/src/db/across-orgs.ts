// The one named path for work across orgs (README "Org isolation"): superadmin routes, sweeps and schedulers that
// iterate orgs, the CLI, the rows of no org (a superadmin's audit, an error before its org was known) and reads of
// `shared` tables across orgs. Everything else reaches org tables through the org-bound handle (`db`), whose
// statements row-level security keeps in their org.
//
//   const due = await services.acrossOrgs('uptime.sweep', (all) =>
//     all.sql<{ id: number; organization_id: number }>`select id, organization_id from uptime_monitors where next_at <= now()`);
//
// Its statements run as the database's owner (DATABASE_URL), whose policy `quad_owner` lets it through, on a small
// pool of its own, in one transaction per call; the service role that module code runs as cannot switch that on by
// itself. Each use logs its reason at debug level and counts it in `quad_across_orgs_total{reason}`, so a reviewer
// finds every use by grepping for `acrossOrgs(` and an operator sees how often each happens. Per-org work found by a
// sweep goes back onto the ordinary path (a fork bound to that org), not through here.
import type { EntityManager, Knex, MikroORM } from '@mikro-orm/postgresql';
import { PostgreSqlConnection } from '@mikro-orm/postgresql';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyBaseLogger } from 'fastify';
import { DeferredTransaction } from './deferred-transaction.js';
import { orgDb, SqlHandle, type OrgDb } from './org-db.js';
import { forkFor } from './orm.js';
import type { AcrossOrgsDb, AcrossOrgsWork } from '../core-services.js';
import { ORG_FILTER } from './org-owned.js';

/** A reason: `<module>.<what>`, written in code (a metric label: never anything a caller chose). */
const REASON = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/;

/** Connections of the owner's pool: cross-org work is rare and short. */
const OWNER_POOL_MAX = 2;

/** The cross-org path's handle (its type is the plugin API's: core-services.ts). The org filter is off on `em`. */
class CrossOrgHandle extends SqlHandle implements AcrossOrgsDb {
  constructor(em: EntityManager, private readonly orm: MikroORM) {
    super(em);
  }

  forOrg(orgId: number): OrgDb {
    return orgDb(forkFor(this.orm, orgId));
  }
}

export interface CrossOrgCounter { acrossOrgs(reason: string): void }

export class AcrossOrgs {
  /** The owner's pool, as a knex client (the transactions' connections come from it). */
  private readonly owner: Knex.Client;

  private constructor(
    private readonly orm: MikroORM,
    /** The owner's own pool, closed with the path. */
    private readonly ownerPool: PostgreSqlConnection,
    private readonly log: FastifyBaseLogger,
    private readonly counter: CrossOrgCounter | null,
  ) {
    this.owner = ownerPool.getKnex().client;
  }

  /**
   * The path, on a pool of its own connected as `ownerUrl`'s role: even when the ORM runs as that role too (no
   * service role), cross-org work started inside an org's transaction never waits on the pool that transaction holds.
   */
  static async open(orm: MikroORM, options: { ownerUrl: string; log: FastifyBaseLogger; counter?: CrossOrgCounter }): Promise<AcrossOrgs> {
    const connection = new PostgreSqlConnection(orm.config, {
      clientUrl: options.ownerUrl,
      driverOptions: { ...orm.config.get('driverOptions'), pool: { min: 0, max: OWNER_POOL_MAX } },
    }, 'write');
    await connection.connect();
    return new AcrossOrgs(orm, connection, options.log, options.counter ?? null);
  }

  /**
   * `work` across orgs, in one transaction as the owner: committed when it resolves (after its EntityManager's
   * flush), rolled back when it throws. `reason` says why, as `<module>.<what>` (`uptime.sweep`, `core.superadmin`).
   */
  async run<T>(reason: string, work: AcrossOrgsWork<T>): Promise<T> {
    if (!REASON.test(reason)) throw new Error(`acrossOrgs: the reason must be "<module>.<what>" in lower case, not ${JSON.stringify(reason)}`);
    this.log.debug({ reason }, 'work across orgs');
    this.counter?.acrossOrgs(reason);
    // Called inside another call's work (a service that reads across orgs, used by a sweep): its transaction, not a
    // second connection of the small pool, which two such calls at once could wait on forever.
    const outer = this.current.getStore();
    if (outer && !outer.transaction.ended) return work(outer.handle);
    const transaction = new DeferredTransaction(this.owner, null);
    // A fork of the ORM itself, not of an org's transaction the call may run in (it would carry that org's binding).
    const em = transaction.enlist(this.orm.em.fork({ disableContextResolution: true }));
    em.setFilterParams(ORG_FILTER, { acrossOrgs: true });
    const handle = new CrossOrgHandle(em, this.orm);
    try {
      const result = await this.current.run({ transaction, handle }, () => work(handle));
      await em.flush();
      await transaction.commit();
      return result;
    } catch (err) {
      await transaction.rollback();
      throw err;
    }
  }

  /** The call whose work is running (see run). */
  private readonly current = new AsyncLocalStorage<{ transaction: DeferredTransaction; handle: CrossOrgHandle }>();

  async close(): Promise<void> {
    await this.ownerPool.close(true);
  }
}
