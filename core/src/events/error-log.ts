// The error log: unhandled request errors and failed jobs, with where, when and which release. Writing it never
// fails the caller: text PostgreSQL cannot store is replaced, and a write that fails anyway is only logged, so a
// request or tool call answers as it would have and a job's outcome stands.
import { hostname } from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { ErrorEntry } from '../entities/logs.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { storableText } from '../db/storable-text.js';
import { forkFor } from '../db/orm.js';
import type { AcrossOrgs } from '../db/across-orgs.js';
import type { EmittedEvent } from '../modules/types.js';
import type { ErrorLogInput } from '../core-services.js';
import { ERROR_UNHANDLED, type EventInput } from './events.js';
import { raiseProblem } from './problems.js';

export type { ErrorLogInput } from '../core-services.js';

/** Longest message and logger line kept; stacks may be twice as long. */
const TEXT_MAX = 16_384;

interface ErrorLogDeps { orm: MikroORM; acrossOrgs: AcrossOrgs; release: string; log: FastifyBaseLogger; emit: Emit }

/**
 * Write on a fresh fork outside any request transaction (the request's own work may be rolled back): bound to the
 * error's org, or on the cross-org path for an error of no org.
 */
async function recordError(deps: ErrorLogDeps, input: ErrorLogInput): Promise<void> {
  const err = input.error instanceof Error ? input.error : new Error(String(input.error));
  const row = {
    organization: input.orgId ?? null,
    source: input.source,
    origin: storableText(input.origin, 1024),
    requestId: input.requestId == null ? null : storableText(input.requestId, 128),
    message: storableText(String(err.message), TEXT_MAX),
    logLine: storableText(input.logLine, TEXT_MAX),
    host: storableText(hostname(), 255),
    release: storableText(deps.release, 255),
    stack: err.stack == null ? null : storableText(err.stack, 2 * TEXT_MAX),
  };
  if (input.orgId == null) await deps.acrossOrgs.run('core.error_log', (all) => all.em.insert(ErrorEntry, row));
  else await forkFor(deps.orm, input.orgId).insert(ErrorEntry, row);
}

/** What caused an error, for grouping repeats: its class, and its code when it has a short one (`DriverException/22021`). */
export function errorCause(error: unknown): string {
  if (!error || typeof error !== 'object') return typeof error;
  const err = error as { name?: unknown; code?: unknown; constructor?: { name?: string } };
  const name = typeof err.name === 'string' && err.name ? err.name : err.constructor?.name || 'object';
  const code = typeof err.code === 'string' || typeof err.code === 'number' ? String(err.code) : '';
  return storableText(/^[\w.-]{1,40}$/.test(code) ? `${name}/${code}` : name, 120);
}

/** Kind of the problem that groups an org's unhandled errors by cause. */
export const UNHANDLED_PROBLEM = 'core.error_unhandled';

type Emit = (em: EntityManager, event: EventInput) => Promise<EmittedEvent>;

/**
 * An unhandled error in a request of an org (after its error log row) raises the problem
 * `core.error_unhandled:<origin>:<cause>`, which counts the repeats of one cause. The event `error.unhandled`
 * (which reaches outbound webhooks) is emitted only when that problem is new or reopens, so a flood of failing
 * requests makes one event, never one per request pushing the org's other events out. Neither carries the
 * error's message: that stays in the error log, for officers.
 */
export async function raiseUnhandled(em: EntityManager, emit: Emit, release: string, input: ErrorLogInput): Promise<void> {
  if (input.source !== 'request' || input.orgId == null) return;
  const orgId = input.orgId;
  const cause = errorCause(input.error);
  const origin = storableText(input.origin, 512);
  const requestId = input.requestId == null ? null : storableText(input.requestId, 128);
  await em.transactional(async (tem) => {
    const problem = await raiseProblem(tem, {
      orgId,
      key: `${UNHANDLED_PROBLEM}:${origin}:${cause}`,
      title: `Unhandled errors in ${origin}`,
      // Stable within a release: repeats count on one row; a resolved problem reopens when it recurs in a new release.
      message: `${cause} in ${origin} (release ${release}); the error log has each occurrence.`,
      data: { origin, cause, last_request_id: requestId },
    });
    if (!problem.created && !problem.reopened) return;
    await emit(tem, {
      orgId, kind: ERROR_UNHANDLED, title: `Unhandled error in ${origin}`,
      message: `${cause} in ${origin}; the error log has the details (request ${requestId ?? 'unknown'}).`,
      data: { origin, cause, request_id: requestId, problem_id: problem.id },
    });
  });
}

/**
 * `services.logError`: the error log row, then, for an org's request, its unhandled-error problem (and event).
 * Never throws: a failure of either step goes to the logger only.
 */
export function errorLogger(deps: ErrorLogDeps): (input: ErrorLogInput) => Promise<void> {
  return async (input) => {
    try {
      await recordError(deps, input);
    } catch (err) {
      deps.log.error({ err, origin: input.origin, request_id: input.requestId }, 'could not write the error log');
    }
    try {
      if (input.orgId != null) await raiseUnhandled(forkFor(deps.orm, input.orgId), deps.emit, deps.release, input);
    } catch (err) {
      deps.log.error({ err, origin: input.origin, request_id: input.requestId }, 'could not raise the unhandled-error problem');
    }
  };
}
