// A pg pool whose idle and checked-out clients both have error handlers: a connection the server drops
// (restart, failover, shutdown) is discarded and reported, never an unhandled 'error' that kills the process.
import pg from 'pg';

const openClients = new WeakMap<pg.Pool, Set<pg.PoolClient>>();

export function createPool(connectionString: string, max: number, onError: (err: Error) => void = () => {}): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  const clients = new Set<pg.PoolClient>();
  openClients.set(pool, clients);
  pool.on('error', onError);
  pool.on('connect', (client) => {
    clients.add(client);
    client.on('error', onError);
  });
  pool.on('remove', (client) => clients.delete(client)); // emitted once the client's connection has closed
  return pool;
}

/**
 * End a pool made by createPool and wait until its connections have closed. pool.end() resolves as soon as it
 * has asked each client to end: a database stopped right after would still see them and terminate them (57P01),
 * which their error handlers report as a failure on a clean shutdown.
 */
export async function endPool(pool: pg.Pool): Promise<void> {
  await pool.end();
  const clients = openClients.get(pool);
  if (!clients?.size) return;
  await new Promise<void>((resolve) => {
    const check = () => {
      if (clients.size) return;
      pool.off('remove', check);
      resolve();
    };
    pool.on('remove', check);
  });
}
