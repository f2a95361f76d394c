// Prepared raw SQL for the core's hot lookups (machine tokens, limits): straight on a pg client of the ORM's own
// pool, skipping the ORM and knex's query building. Outside a transaction only; the statement name makes pg
// prepare it once per connection.
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';

export async function preparedQuery<R>(em: EntityManager, name: string, text: string, values: unknown[]): Promise<R[]> {
  const knex = em.getConnection().getKnex();
  const client = await knex.client.acquireConnection() as pg.PoolClient;
  try {
    return (await client.query({ name, text, values })).rows as R[];
  } finally {
    await knex.client.releaseConnection(client);
  }
}
