// Is this error the database being unreachable (rather than a bug or bad data)? One answer for the HTTP error
// handler, the tool service and /health: an outage is a 503 `database_unavailable` with Retry-After, never a 500.

/** Seconds a client is asked to wait (Retry-After) while the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Socket errors of a connection that could not be made or was cut. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
]);

/**
 * SQLSTATEs of an unreachable server: class 08 (connection exception) except 08P01 (a protocol violation: our
 * query was malformed, e.g. a NUL inlined in its text, and the connection is fine), 57P01 admin shutdown, 57P02
 * crash shutdown, 57P03 cannot connect now (starting up, shutting down, recovering), 53300 too many connections.
 */
const OUTAGE_SQLSTATE = /^(08(?!P01)[0-9A-Z]{3}|57P0[123]|53300)$/;

/** Messages of node-postgres, pg-pool and knex that carry no code (MikroORM puts the SQL before them: `<sql> - <message>`). */
const OUTAGE_MESSAGE = [
  /^Connection terminated/i,
  /^Connection ended unexpectedly/i,
  /^Client has encountered a connection error and is not queryable/i,
  /^Client was closed and is not queryable/i,
  /^timeout exceeded when trying to connect/i,
  /^Knex: Timeout acquiring a connection/i,
];

function isOutage(err: Record<string, unknown>): boolean {
  const code = typeof err.code === 'string' ? err.code : undefined;
  if (code && (NETWORK_CODES.has(code) || OUTAGE_SQLSTATE.test(code))) return true;
  // A FATAL or PANIC server error ends the session: the connection is gone (also refusals at connect time,
  // such as a database that no longer accepts connections).
  if (err.severity === 'FATAL' || err.severity === 'PANIC') return true;
  if (err.name === 'KnexTimeoutError') return true;
  if (code || typeof err.message !== 'string') return false;
  // Only the driver's own words, after the SQL: a bound value that happens to read "Connection terminated" is not one.
  const cut = err.message.lastIndexOf(' - ');
  const own = cut < 0 ? err.message : err.message.slice(cut + 3);
  return OUTAGE_MESSAGE.some((pattern) => pattern.test(own));
}

/**
 * True when `err` (or an error it wraps: `cause`, an AggregateError's `errors`) says the database cannot be reached.
 * Raw socket errors count as the database's: other services are reached through adapters that wrap theirs
 * (DiscordUnavailable, GitHubUnavailable…), and a failed `fetch` (`TypeError: fetch failed`) is not looked into.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length && seen.size < 10) {
    const next = queue.shift();
    if (!next || typeof next !== 'object' || seen.has(next)) continue;
    seen.add(next);
    const e = next as Record<string, unknown>;
    if (isOutage(e)) return true;
    if (e instanceof TypeError && e.message === 'fetch failed') continue;
    queue.push(e.cause);
    if (Array.isArray(e.errors)) queue.push(...e.errors);
  }
  return false;
}
