// A transaction that begins with its first statement. Work that may or may not touch the database (a tool call)
// gets an EntityManager inside it up front, and pays for BEGIN and COMMIT only when something is sent through
// that EntityManager; the caller's own last statement then runs inside the transaction, or alone (autocommit)
// when nothing began it.
import type { EntityManager, Knex, MikroORM } from '@mikro-orm/postgresql';
import { forkFor, rawQuery } from './orm.js';
import type { PreparedQuery, RawQuery } from './raw-query.js';

export class DeferredTransaction {
  private begun: Promise<Knex.Transaction> | null = null;
  private transactor: Knex.Transaction | null = null;
  private ended = false;
  /** What the forks hold as their transaction context; made by the first fork (see context()). */
  private shared: object | null = null;

  constructor(private readonly orm: MikroORM) {}

  /**
   * knex runs a statement of a transaction on `ctx.client` (MikroORM calls `transacting(ctx)`): this client is the
   * pool's, except that asking it for a connection begins the real knex transaction, whose client then runs the
   * statement. Savepoints (a nested em.transactional) are the real transaction's own.
   */
  private context(): object {
    if (this.shared) return this.shared;
    const client = Object.create(this.orm.em.getConnection().getKnex().client, {
      transacting: { value: true },
      acquireConnection: { value: async () => (await this.begin()).client.acquireConnection() },
      releaseConnection: { value: async () => {} },
      query: { value: (connection: unknown, statement: unknown) => this.transactor!.client.query(connection, statement) },
      stream: { value: (...args: unknown[]) => this.transactor!.client.stream(...args) },
    });
    return (this.shared = {
      client,
      transaction: async (container: null, config: Knex.TransactionConfig) => (await this.begin()).transaction(container, config),
    });
  }

  private begin(): Promise<Knex.Transaction> {
    if (this.ended) return Promise.reject(new Error('The transaction has ended: no more statements may run in it'));
    return (this.begun ??= this.orm.em.getConnection().getKnex().transaction().then((trx) => (this.transactor = trx)));
  }

  /** A fork bound to the org whose statements (queries, flushes, nested transactions) run in this transaction. */
  fork(orgId: number): EntityManager {
    const em = forkFor(this.orm, orgId);
    em.setTransactionContext(this.context() as Knex.Transaction);
    return em;
  }

  /**
   * Run the transaction's last statement: on its connection when something began it, else alone on the pool
   * (nothing can begin it afterwards). Then commit() or rollback().
   */
  async last<R>(statement: PreparedQuery): Promise<R[]> {
    if (!this.begun) {
      this.ended = true;
      return rawQuery(this.orm)<R>(statement);
    }
    const trx = await this.begun;
    const connection = await trx.client.acquireConnection();
    return (await connection.query(statement)).rows as R[];
  }

  async commit(): Promise<void> {
    this.ended = true;
    if (!this.begun) return;
    const trx = await this.begun;
    void trx.commit();
    // knex settles the commit's outcome (a failed COMMIT rejects) on executionPromise, not on commit()'s promise.
    await trx.executionPromise;
  }

  /** Roll back what began (never throws: a failed rollback leaves a broken connection that knex discards). */
  async rollback(): Promise<void> {
    this.ended = true;
    await this.begun?.then((trx) => trx.rollback(), () => {});
  }
}
