// The error log: unhandled request errors and failed jobs, with where, when and which release.
import { hostname } from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ErrorEntry } from '../entities/logs.js';

export interface ErrorLogInput {
  orgId?: number | null;
  /** `event`: an event handler that failed (the event itself was kept). */
  source: 'request' | 'job' | 'event';
  /** `GET /api/x/:y`, the job name, or `<module> handler of <event kind>`. */
  origin: string;
  requestId?: string | null;
  error: unknown;
  /** The logger line written for this error. */
  logLine: string;
}

/** Write on a fresh fork outside any request transaction: the request's own work may be rolled back. */
export async function recordError(orm: MikroORM, release: string, input: ErrorLogInput): Promise<void> {
  const err = input.error instanceof Error ? input.error : new Error(String(input.error));
  await orm.em.fork().insert(ErrorEntry, {
    organization: input.orgId ?? null,
    source: input.source,
    origin: input.origin,
    requestId: input.requestId ?? null,
    message: err.message,
    logLine: input.logLine,
    host: hostname(),
    release,
    stack: err.stack ?? null,
  });
}
