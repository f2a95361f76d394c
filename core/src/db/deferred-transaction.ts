// A transaction that begins with its first statement. Work that may or may not touch the database (a tool call)
// gets an EntityManager inside it up front, and pays for BEGIN and COMMIT only when something is sent through
// that EntityManager; the caller's own last statement then runs inside the transaction, or alone (autocommit)
// when nothing began it.
//
// It runs on one pooled connection with plain BEGIN / SAVEPOINT / COMMIT statements rather than a knex
// transaction object: knex builds a transactor, a client and a chain of promises per transaction, which cost more
// than the statements of a typical tool call (issue 12). MikroORM sees what it expects of a knex transaction: a
// context whose `client` runs statements on the connection, and whose `transaction()` opens a savepoint.
import type { EntityManager, Knex, MikroORM } from '@mikro-orm/postgresql';
import { forkFor, rawQuery } from './orm.js';
import type { PreparedQuery } from './raw-query.js';

/** The part of a pooled pg connection used here. */
interface Connection { query(statement: string | PreparedQuery): Promise<{ rows: unknown[] }>; __knex__disposed?: unknown }

/** A nested transaction as MikroORM drives it (`em.transactional` inside the call): one savepoint. */
interface Savepoint {
  client: Knex.Client;
  transaction(container: null, config?: unknown): Promise<Savepoint>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  executionPromise?: Promise<void>;
}

export class DeferredTransaction {
  private begun: Promise<Connection> | null = null;
  private ended = false;
  private savepoints = 0;
  /** What the forks hold as their transaction context; made by the first fork (see context()). */
  private shared: { client: Knex.Client; transaction: Savepoint['transaction'] } | null = null;
  private readonly pool: Knex.Client;

  constructor(private readonly orm: MikroORM) {
    this.pool = orm.em.getConnection().getKnex().client;
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
    if (this.ended) return Promise.reject(new Error('The transaction has ended: no more statements may run in it'));
    return (this.begun ??= (async () => {
      const connection = await this.pool.acquireConnection() as Connection;
      try {
        await connection.query('begin');
      } catch (err) {
        await this.release(connection, err);
        throw err;
      }
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

  /** A fork bound to the org whose statements (queries, flushes, nested transactions) run in this transaction. */
  fork(orgId: number): EntityManager {
    const em = forkFor(this.orm, orgId);
    em.setTransactionContext(this.context() as unknown as Knex.Transaction);
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
    return (await (await this.begun).query(statement)).rows as R[];
  }

  async commit(): Promise<void> {
    this.ended = true;
    if (!this.begun) return;
    const connection = await this.begun;
    let failure: unknown;
    try {
      await connection.query('commit');
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      await this.release(connection, failure);
    }
  }

  /** Roll back what began (never throws: a connection whose rollback failed is discarded, not pooled). */
  async rollback(): Promise<void> {
    this.ended = true;
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
