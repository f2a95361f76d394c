// A pg pool whose idle and checked-out clients both have error handlers: a connection the server drops
// (restart, failover, shutdown) is discarded and reported, never an unhandled 'error' that kills the process.
import pg from 'pg';

export function createPool(connectionString: string, max: number, onError: (err: Error) => void = () => {}): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}
