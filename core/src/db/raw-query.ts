// Raw prepared SQL on a knex client (the ORM's pool, or a transaction's connection), for the core's hot lookups and
// the driver's prepared finds. No ORM import here: the org cache and the revocation list use these types without
// importing the ORM setup (no import cycle through a runtime file).
import type { Knex } from '@mikro-orm/postgresql';

/** A named (prepared once per connection) statement; `name` must be unique to its `text`. */
export interface PreparedQuery { name: string; text: string; values: unknown[] }
export type RawQuery = <R = Record<string, unknown>>(query: PreparedQuery) => Promise<R[]>;

/** Runs prepared statements on a connection of `client`: a transaction's own, or one borrowed from the pool. */
export function onClient(client: Knex.Client): RawQuery {
  return async <R>(query: PreparedQuery) => {
    const connection = await client.acquireConnection();
    try {
      return (await connection.query(query)).rows as R[];
    } finally {
      await client.releaseConnection(connection);
    }
  };
}
