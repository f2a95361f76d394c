// Binding a unit of work (a request, a job run, a tool call, an event handler) to its org in PostgreSQL. Row-level
// security compares each org table's organization_id with the transaction's `quad.org_id` (README "Org
// isolation"), so every statement such work sends runs in a transaction bound to its org, set by the transaction's
// first statement, and never on a session: a pooled connection carries no org from one borrower to the next.
//
// The binding costs no round trip. A statement sent outside an explicit transaction (an autocommit read, say) is
// written as two statements of one implicit transaction (the extended protocol runs everything before a Sync in
// one): the binding, then the statement, with one Sync; one round trip, no BEGIN or COMMIT (OrgBoundQuery). An
// explicit transaction (em.transactional, em.begin, a flush) writes BEGIN and the binding ahead of its first
// statement without waiting for their answers: the ORM's connections are pipelined (orm.ts).
import type { Knex } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { PreparedQuery, Statement, StatementResult } from './statement.js';

/** The transaction-local setting the policies read; empty or unset means no org, which shows no org rows. */
const ORG_SETTING = 'quad.org_id';

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
  query(statement: OrgBoundQuery): unknown;
  __knex__disposed?: unknown;
}

export type IsolationLevel = 'read committed' | 'repeatable read' | 'serializable';

const BIND: Omit<PreparedQuery, 'values'> = { name: 'quad_bind_org', text: `select set_config('${ORG_SETTING}', $1, true)` };

/**
 * Write BEGIN and the binding on `connection` (not waiting: the caller's statements follow them in the pipeline).
 * The promise settles when both are answered; it rejects when either fails. No org (the cross-org path): BEGIN alone.
 */
export function beginBound(connection: PgConnection, orgId: number | null, isolation?: IsolationLevel): Promise<unknown> {
  const begin = connection.query(isolation ? `begin isolation level ${isolation}` : 'begin');
  return orgId === null ? begin : Promise.all([begin, connection.query({ ...BIND, values: [String(orgId)] })]);
}

/** pg's Query as this file uses it (its published types do not name the protocol handlers). */
interface PgQuery {
  submit(connection: PgWire): Error | null;
  handleDataRow(message: never): void;
  handleCommandComplete(message: never, connection: never): void;
}

interface PgWire {
  parse(message: { text: string; name: string }): void;
  bind(message: { statement: string; values: unknown[] }): void;
  execute(message: { portal: string }): void;
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  stream: { cork?(): void; uncork?(): void };
}

/**
 * A statement in an implicit transaction of its own, bound to an org: pg's Query, with the binding written ahead of
 * it (Parse once per connection, Bind, Execute, no Sync), so both run before the statement's Sync in one implicit
 * transaction and the setting ends with it. The binding's own answers (its row and its command tag) are not the
 * statement's: they are passed over. Always the extended protocol: a simple query would end the implicit
 * transaction before the statement.
 */
class OrgBoundQuery extends (pg.Query as unknown as new (config: object) => PgQuery) {
  /** The binding's answers still to pass over: its row, then its command tag. */
  private bindingPending = true;

  constructor(config: Statement, private readonly orgId: number, callback?: (err: Error | null, result: unknown) => void) {
    super({ ...config, queryMode: 'extended', ...(callback && { callback }) } as never);
  }

  override submit(connection: PgWire): Error | null {
    connection.stream.cork?.();
    try {
      if (!(BIND.name in connection.parsedStatements) && !(BIND.name in connection.submittedNamedStatements)) {
        connection.parse({ text: BIND.text, name: BIND.name });
        // Kept as submitted: its ParseComplete is answered to this query, whose own name pg then records.
        connection.submittedNamedStatements[BIND.name] = BIND.text;
      }
      connection.bind({ statement: BIND.name, values: [String(this.orgId)] });
      connection.execute({ portal: '' });
    } finally {
      connection.stream.uncork?.();
    }
    return super.submit(connection);
  }

  override handleDataRow(message: never) {
    if (!this.bindingPending) super.handleDataRow(message);
  }

  override handleCommandComplete(message: never, connection: never) {
    if (this.bindingPending) this.bindingPending = false;
    else super.handleCommandComplete(message, connection);
  }
}

/** `statement` in an implicit transaction of its own on `connection`, bound to `orgId` (OrgBoundQuery). */
function inBoundTransaction<R>(connection: PgConnection, orgId: number, statement: Statement): Promise<StatementResult<R>> {
  return new Promise((resolve, reject) => {
    connection.query(new OrgBoundQuery(statement, orgId, (err, result) => (err ? reject(err) : resolve(result as StatementResult<R>))));
  });
}

/**
 * `statement` on a connection borrowed from `pool`, bound to `orgId` in an implicit transaction of its own. A
 * connection whose statement failed in a way that may leave it unusable (no PostgreSQL error: a broken socket) is
 * marked so that the pool's validation discards it (knex's own mark for a broken connection).
 */
export async function runInBoundTransaction<R>(pool: Knex.Client, orgId: number, statement: Statement): Promise<StatementResult<R>> {
  const connection = await pool.acquireConnection() as PgConnection;
  try {
    return await inBoundTransaction<R>(connection, orgId, statement);
  } catch (err) {
    if (!(err as { severity?: unknown }).severity) connection.__knex__disposed = err;
    throw err;
  } finally {
    await pool.releaseConnection(connection);
  }
}

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
    const client = Object.create(pool, {
      // knex runs a statement on `transacting` clients only: `query.transacting(ctx)` checks it.
      transacting: { value: true },
      // knex's pg _query, with the statement bound (see OrgBoundQuery).
      _query: {
        value(connection: PgConnection, obj: { sql: string; bindings?: unknown[]; options?: object; response?: unknown }) {
          if (!obj.sql) throw new Error('The query is empty');
          return inBoundTransaction(connection, orgId, { text: obj.sql, values: obj.bindings ?? [], ...obj.options }).then((response) => {
            obj.response = response;
            return obj;
          });
        },
      },
      runBound: { value: <R>(statement: Statement) => runInBoundTransaction<R>(pool, orgId, statement) },
    }) as BoundClient;
    this.context = { client, transaction: (_container, config) => begin(orgId, config?.isolationLevel) };
  }
}
