// A transaction bound to an org (org-binding.ts) that begins with its first statement. Work that may or may not
// touch the database (a tool call) gets an EntityManager inside it up front, and pays for BEGIN and COMMIT only
// when something is sent through that EntityManager; the caller's own last statement then runs inside the
// transaction, or alone in a bound transaction of its own when nothing began it. An org-bound EntityManager's
// explicit transactions (em.transactional, em.begin, a flush) are such transactions too (`knexTransaction`).
//
// The cross-org path (across-orgs.ts) runs its work in such a transaction bound to no org, on the owner's pool.
//
// It runs on one pooled connection with plain BEGIN / SAVEPOINT / COMMIT statements rather than a knex
// transaction object: knex builds a transactor, a client and a chain of promises per transaction, which cost more
// than the statements of a typical tool call (issue 12). MikroORM sees what it expects of a knex transaction: a
// context whose `client` runs statements on the connection, and whose `transaction()` opens a savepoint.
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { beginBound, checkedOrgId, runInBoundTransaction, type IsolationLevel, type PgConnection as Connection } from './org-binding.js';
import type { PreparedQuery } from './raw-query.js';

/** A nested transaction as MikroORM drives it (`em.transactional` inside the call): one savepoint. */
interface Savepoint {
  client: Knex.Client;
  transaction(container: null, config?: unknown): Promise<Savepoint>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  executionPromise?: Promise<void>;
}

/** What MikroORM holds as the transaction context of a root transaction (see knexTransaction()). */
interface KnexTransactionLike extends Savepoint { executionPromise?: Promise<void> }

export class DeferredTransaction {
  private begun: Promise<Connection> | null = null;
  /** BEGIN and the binding, answered (or failed) after the first statement was written behind them. */
  private bound: Promise<unknown> | null = null;
  private isEnded = false;
  private savepoints = 0;
  /** What the forks hold as their transaction context; made by the first fork (see context()). */
  private shared: { client: Knex.Client; transaction: Savepoint['transaction'] } | null = null;

  /** Committed or rolled back: no statement may run in it any more. */
  get ended(): boolean {
    return this.isEnded;
  }

  /** The org it is bound to; null for the cross-org path's transactions (bound to none). */
  readonly orgId: number | null;

  /** `pool`: the ORM's knex client (`poolClient(orm)`), or the cross-org path's. */
  constructor(private readonly pool: Knex.Client, orgId: number | null, private readonly isolation?: IsolationLevel) {
    this.orgId = orgId === null ? null : checkedOrgId(orgId);
  }

  /**
   * knex runs a statement of a transaction on `ctx.client` (MikroORM calls `transacting(ctx)`): a client of the
   * pool whose connection is this transaction's, asked for on the first statement (which sends BEGIN first).
   */
  private context() {
    if (this.shared) return this.shared;
    const client = Object.create(this.pool, {
      transacting: { value: true },
      acquireConnection: { value: () => this.begin() },
      releaseConnection: { value: async () => {} },
    }) as Knex.Client;
    return (this.shared = { client, transaction: () => this.savepoint(client) });
  }

  private begin(): Promise<Connection> {
    if (this.isEnded) return Promise.reject(new Error('The transaction has ended: no more statements may run in it'));
    return (this.begun ??= (async () => {
      const connection = await this.pool.acquireConnection() as Connection;
      // Not awaited: the first statement is written behind BEGIN and the binding (a failure of either fails it
      // too, and commit() reports it).
      this.bound = beginBound(connection, this.orgId, this.isolation);
      this.bound.catch(() => {});
      return connection;
    })());
  }

  /** A savepoint on this transaction's connection; nested savepoints are its own. */
  private async savepoint(client: Knex.Client): Promise<Savepoint> {
    const connection = await this.begin();
    const name = `quad_${++this.savepoints}`;
    await connection.query(`savepoint ${name}`);
    const savepoint: Savepoint = {
      client,
      transaction: () => this.savepoint(client),
      // MikroORM calls commit() and then awaits executionPromise (knex's way of reporting a failed commit).
      commit() {
        savepoint.executionPromise = connection.query(`release savepoint ${name}`).then(() => {});
        return savepoint.executionPromise;
      },
      async rollback() { await connection.query(`rollback to savepoint ${name}`); },
    };
    return savepoint;
  }

  /** Make `em` (a fork bound to this transaction's org) send its statements (queries, flushes, nested
   *  transactions) in this transaction. */
  enlist(em: EntityManager): EntityManager {
    em.setTransactionContext(this.context() as unknown as Knex.Transaction);
    return em;
  }

  /** This transaction as MikroORM drives a root transaction: statements on `client`, commit() and rollback(),
   *  and a savepoint for each nested transaction. */
  knexTransaction(): KnexTransactionLike {
    const context = this.context();
    const transaction: KnexTransactionLike = {
      client: context.client,
      transaction: context.transaction,
      // MikroORM calls commit() and then awaits executionPromise (knex's way of reporting a failed commit).
      commit: () => (transaction.executionPromise = this.commit()),
      rollback: () => this.rollback(),
    };
    return transaction;
  }

  /**
   * Run the transaction's last statement: on its connection when something began it, else alone in a bound
   * transaction of its own (nothing can begin this one afterwards). Then commit() or rollback().
   */
  async last<R>(statement: PreparedQuery): Promise<R[]> {
    if (!this.begun && this.orgId !== null) {
      this.isEnded = true;
      return (await runInBoundTransaction<R>(this.pool, this.orgId, statement)).rows;
    }
    return (await (await this.begin()).query(statement)).rows as R[];
  }

  async commit(): Promise<void> {
    this.isEnded = true;
    if (!this.begun) return;
    const connection = await this.begun;
    let failure: unknown;
    try {
      const [begun, committed] = await Promise.allSettled([this.bound, connection.query('commit')]);
      if (begun.status === 'rejected') throw begun.reason;
      if (committed.status === 'rejected') throw committed.reason;
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      await this.release(connection, failure);
    }
  }

  /** Roll back what began (never throws: a connection whose rollback failed is discarded, not pooled). */
  async rollback(): Promise<void> {
    this.isEnded = true;
    const connection = await this.begun?.catch(() => null);
    if (!connection) return;
    let failure: unknown;
    await connection.query('rollback').catch((err) => { failure = err; });
    await this.release(connection, failure);
  }

  /** Back to the pool; a connection whose last statement failed in a way that may leave it unusable is marked so
   *  that the pool's validation discards it (knex's own mark for a broken connection). */
  private async release(connection: Connection, failure?: unknown) {
    if (failure && !(failure as { severity?: unknown }).severity) connection.__knex__disposed = failure;
    await this.pool.releaseConnection(connection);
  }
}
