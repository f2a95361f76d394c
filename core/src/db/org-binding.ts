// Binding a unit of work (a request, a job run, a tool call, an event handler) to its org in PostgreSQL. Row-level
// security compares each org table's organization_id with the transaction's `quad.org_id` (README "Org
// isolation"), so every statement such work sends runs in a transaction bound to its org, set by the transaction's
// first statement, and never on a session: a pooled connection carries no org from one borrower to the next.
//
// The binding costs no round trip. The ORM's connections are pipelined (orm.ts): BEGIN and the binding are written
// ahead of the work's first statement without waiting for their answers. A statement sent outside an explicit
// transaction (an autocommit read, say) is sent as BEGIN, bind, the statement and COMMIT in one write, and answered
// in one round trip; an explicit transaction (em.transactional, em.begin, a flush) begins bound the same way.
import type { Knex } from '@mikro-orm/postgresql';
import type { PreparedQuery, Statement, StatementResult } from './statement.js';

/** The transaction-local setting the policies read; empty or unset means no org, which shows no org rows. */
export const ORG_SETTING = 'quad.org_id';

/** The policies' expression for the bound org (null when none is bound). */
export const BOUND_ORG_SQL = `nullif(current_setting('${ORG_SETTING}', true), '')::integer`;

/** An org id to bind: checked where a binding is made, so that no connection is taken for a bad one. */
export function checkedOrgId(orgId: number): number {
  if (!Number.isSafeInteger(orgId) || orgId <= 0) throw new Error(`An org id must be a positive integer, not ${String(orgId)}`);
  return orgId;
}

/** The part of a pooled pg connection used here (pg's Client). */
export interface PgConnection {
  query(statement: string | PreparedQuery | Statement): Promise<StatementResult<unknown>>;
  query(statement: object, callback: (err: Error | null, response: unknown) => void): void;
  __knex__disposed?: unknown;
}

export type IsolationLevel = 'read committed' | 'repeatable read' | 'serializable';

const BIND: Omit<PreparedQuery, 'values'> = { name: 'quad_bind_org', text: `select set_config('${ORG_SETTING}', $1, true)` };

/**
 * Write BEGIN and the binding on `connection` (not waiting: the caller's statements follow them in the pipeline).
 * The promise settles when both are answered; it rejects when either fails.
 */
export function beginBound(connection: PgConnection, orgId: number, isolation?: IsolationLevel): Promise<unknown> {
  return Promise.all([
    connection.query(isolation ? `begin isolation level ${isolation}` : 'begin'),
    connection.query({ ...BIND, values: [String(orgId)] }),
  ]);
}

/**
 * One statement in a transaction of its own, bound to `orgId`: BEGIN, bind, `send` (which must write its statement
 * on the connection before it returns, as pg's query does) and COMMIT, written together. After a failed statement
 * COMMIT ends the aborted transaction (PostgreSQL answers it ROLLBACK), so the connection goes back clean.
 */
export async function inBoundTransaction<R>(connection: PgConnection, orgId: number, send: () => Promise<R>): Promise<R> {
  const begun = beginBound(connection, orgId);
  let sent: Promise<R>;
  try {
    sent = send();
  } catch (err) {
    sent = Promise.reject(err); // COMMIT still ends what BEGIN began: the connection must not go back in a transaction
  }
  const ended = connection.query('commit');
  const [b, s, e] = await Promise.allSettled([begun, sent, ended]);
  if (s.status === 'rejected') throw s.reason;
  if (b.status === 'rejected') throw b.reason;
  if (e.status === 'rejected') throw e.reason;
  return s.value;
}

/**
 * `statement` on a connection borrowed from `pool`, in a bound transaction of its own. A connection whose statement
 * failed in a way that may leave it unusable (no PostgreSQL error: a broken socket) is marked so that the pool's
 * validation discards it (knex's own mark for a broken connection).
 */
export async function runInBoundTransaction<R>(pool: Knex.Client, orgId: number, statement: Statement): Promise<StatementResult<R>> {
  const connection = await pool.acquireConnection() as PgConnection;
  try {
    return await inBoundTransaction(connection, orgId, () => connection.query(statement)) as StatementResult<R>;
  } catch (err) {
    if (!(err as { severity?: unknown }).severity) connection.__knex__disposed = err;
    throw err;
  } finally {
    await pool.releaseConnection(connection);
  }
}

/** What a knex client of the ORM's pool offers here (knex's Client, whose `_query` sends one statement). */
type PoolClient = Knex.Client & { _query(connection: PgConnection, obj: { sql: string }): Promise<unknown> };

/** A client that runs each statement in a transaction bound to one org (see OrgBinding). */
export interface BoundClient extends Knex.Client {
  /** Run a statement on a pooled connection in a transaction of its own, bound to the org. */
  runBound<R>(statement: Statement): Promise<StatementResult<R>>;
}

export const isBoundClient = (client: Knex.Client): client is BoundClient => typeof (client as Partial<BoundClient>).runBound === 'function';

/**
 * An org's binding for EntityManagers outside explicit transactions: what MikroORM holds as their transaction
 * context. Its client takes connections from the pool and runs each statement in a bound transaction of its own
 * (autocommit, as before, but bound); `transaction()` begins an explicit bound transaction (`begin` below).
 */
export class OrgBinding {
  readonly context: { client: BoundClient; transaction(container: null, config?: { isolationLevel?: IsolationLevel }): Promise<unknown> };

  readonly orgId: number;

  constructor(orgId: number, pool: Knex.Client, begin: (orgId: number, isolation?: IsolationLevel) => Promise<unknown>) {
    this.orgId = checkedOrgId(orgId);
    const poolClient = pool as PoolClient;
    const client = Object.create(poolClient, {
      // knex runs a statement on `transacting` clients only: `query.transacting(ctx)` checks it.
      transacting: { value: true },
      _query: {
        value(this: PoolClient, connection: PgConnection, obj: { sql: string }) {
          return inBoundTransaction(connection, orgId, () => poolClient._query.call(this, connection, obj));
        },
      },
      runBound: { value: <R>(statement: Statement) => runInBoundTransaction<R>(pool, orgId, statement) },
    }) as BoundClient;
    this.context = { client, transaction: (_container, config) => begin(orgId, config?.isolationLevel) };
  }
}
