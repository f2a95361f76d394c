// Raw prepared SQL on a knex client (the ORM's pool, or a transaction's connection), for the core's hot lookups and
// the driver's prepared finds. No ORM import here: the org cache and the revocation list use these types without
// importing the ORM setup (no import cycle through a runtime file).
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { isBoundClient } from './org-binding.js';

import type { PreparedQuery, Statement, StatementResult } from './statement.js';

export type { PreparedQuery, Statement, StatementResult } from './statement.js';
export type RawQuery = <R = Record<string, unknown>>(query: PreparedQuery) => Promise<R[]>;

/** Runs statements on a connection of `client` (a transaction's own, or one borrowed from the pool), answering
 *  pg's result. */
export function statementsOn(client: Knex.Client): <R>(statement: Statement) => Promise<StatementResult<R>> {
  // An org-bound EntityManager's client outside a transaction: each statement in a bound transaction of its own.
  if (isBoundClient(client)) return (statement) => client.runBound(statement);
  return async <R>(statement: Statement) => {
    const connection = await client.acquireConnection();
    try {
      return await connection.query(statement) as StatementResult<R>;
    } finally {
      await client.releaseConnection(connection);
    }
  };
}

/** Runs prepared statements on a connection of `client`, answering their rows. */
export function onClient(client: Knex.Client): RawQuery {
  const send = statementsOn(client);
  return async <R>(query: PreparedQuery) => (await send<R>(query)).rows;
}

/** Raw prepared SQL on the connection `em` works on: its transaction's (or binding's) when it has one, else the pool's. */
export function rawQueryOn(em: EntityManager): RawQuery {
  return onClient((em.getTransactionContext<Knex.Transaction>() ?? em.getConnection().getKnex()).client);
}
