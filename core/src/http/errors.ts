// Handled errors carry their status; everything else is a 500 that lands in the error log. `knownError` maps,
// once for every route and tool, the errors of the outside world we expect (an unreachable database, Discord,
// identity provider or GitHub) to their 503, so no handler has to catch them.
import { DiscordUnavailable } from '../adapters/discord/errors.js';
import { GitHubUnavailable } from '../adapters/github/errors.js';
import { IdpUnavailable } from '../adapters/idp/errors.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../db/outage.js';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly reason?: string,
    /** Sent in the body; a numeric `retry_after` (seconds) is also sent as the Retry-After header. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string, reason?: string, details?: Record<string, unknown>) => new HttpError(400, message, reason, details);
export const unauthorized = (message = 'Authentication required', reason?: string) => new HttpError(401, message, reason);
export const forbidden = (message = 'Forbidden', reason?: string) => new HttpError(403, message, reason);
export const notFound = (message = 'Not found', reason?: string) => new HttpError(404, message, reason);
export const conflict = (message: string, reason?: string, details?: Record<string, unknown>) => new HttpError(409, message, reason, details);
export const tooManyRequests = (message: string, reason?: string, details?: Record<string, unknown>) => new HttpError(429, message, reason, details);
/** 503; with `retryAfter` (seconds) the answer carries `retry_after` and the Retry-After header. */
export const unavailable = (message: string, reason?: string, retryAfter?: number) =>
  new HttpError(503, message, reason, retryAfter !== undefined ? { retry_after: Math.max(1, Math.ceil(retryAfter)) } : undefined);

/** The body of every 500, on routes and tools alike: no detail, only the id that finds it in the error log. */
export const internalErrorBody = (requestId: string) => ({ error: 'Internal Server Error', request_id: requestId });

/** Seconds to send as Retry-After for this error, if any. */
export function retryAfterOf(err: HttpError): number | undefined {
  const seconds = err.details?.retry_after;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : undefined;
}

/**
 * The HTTP answer for an error the core knows: an HttpError as it is, an outside service that cannot answer as
 * its 503 (`database_unavailable`, `bot_unavailable`, `idp_unavailable`, `github_unavailable`). Null for
 * anything else: a bug, answered 500 with no detail. The messages are fixed, never the cause's own (which may
 * name addresses).
 */
export function knownError(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof DiscordUnavailable) return unavailable('Discord is unavailable; try again shortly', 'bot_unavailable', err.retryAfter);
  if (err instanceof IdpUnavailable) return unavailable('The identity provider is unavailable', 'idp_unavailable');
  if (err instanceof GitHubUnavailable) return unavailable('GitHub is unavailable; try again shortly', 'github_unavailable');
  if (isDatabaseUnavailable(err)) return unavailable('The database is unavailable; try again shortly', 'database_unavailable', DATABASE_RETRY_AFTER_SECONDS);
  if (isRowSecurityRefusal(err)) return forbidden('That row belongs to another org', 'other_org_row');
  return null;
}

/**
 * PostgreSQL's row-level security refused a row: a write (an insert, an update, an upsert) of a row of another org
 * than the one the work is bound to. The wall held against a module that forgot its org (README "Org isolation").
 */
function isRowSecurityRefusal(err: unknown, depth = 0): boolean {
  const e = err as { code?: unknown; message?: unknown; cause?: unknown } | null;
  if (!e || typeof e !== 'object' || depth > 4) return false;
  if (e.code === '42501' && typeof e.message === 'string' && e.message.includes('row-level security')) return true;
  return isRowSecurityRefusal(e.cause, depth + 1);
}

/**
 * What officers and outbound webhooks may read about a failure: the message of an error the core knows (an
 * HttpError a handler threw on purpose, an unavailable service), never a bug's own message (SQL, addresses).
 */
export function publicMessage(err: unknown, fallback = 'Internal error (details in the error log)'): string {
  return knownError(err)?.message ?? fallback;
}
