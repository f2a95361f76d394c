// Starting a job: check its payload, take the one-at-a-time slot, and enqueue it in the caller's transaction.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { JobRun } from '../entities/logs.js';
import { badRequest, conflict } from '../http/errors.js';
import type { ModuleRegistry, StartedJob, StartOptions } from '../core-services.js';
import { payloadProblem } from './payload.js';

/** Keys the runner adds to a payload; handlers never see them. */
export const RUN_ID = '__quad_run';
export const RUN_ORG = '__quad_org';
export const DEFAULT_MAX_ATTEMPTS = 5;

export type { StartOptions, StartedJob } from '../core-services.js';

export async function startJob(
  registry: ModuleRegistry, em: EntityManager, name: string, payload: Record<string, unknown>, options: StartOptions = {},
): Promise<StartedJob> {
  const job = registry.jobs.get(name);
  if (!job) throw new Error(`No job named "${name}" is declared by a loaded module`);
  const problem = payloadProblem(job, payload);
  if (problem) throw badRequest(`Invalid payload for ${name}: ${problem}`, 'invalid_job_payload');
  const orgId = options.orgId ?? null;
  if (job.once === 'org' && orgId == null) throw new Error(`Job "${name}" runs once per org and needs an org`);
  const scopeKey = job.once === 'org' ? `org:${orgId}` : typeof job.once === 'function' ? `key:${job.once(payload)}` : null;

  return em.transactional(async (tem) => {
    let runId: number;
    try {
      // The partial unique index job_runs_once refuses a second queued or running run of this scope.
      runId = (await tem.insert(JobRun, { organization: orgId, name, scopeKey, status: 'queued', payload })) as number;
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) {
        throw conflict(`${name} is already running${orgId != null ? ' for this org' : ''}; wait for it to finish`, 'job_running', { job: name });
      }
      throw err;
    }
    // SQL add_job runs on this transaction's connection, so a rollback drops the job too.
    await tem.execute(
      'select graphile_worker.add_job(?, ?::json, run_at => ?::timestamptz, max_attempts => ?)',
      [name, JSON.stringify({ ...payload, [RUN_ID]: runId, [RUN_ORG]: orgId }), (options.runAt ?? new Date()).toISOString(), job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS],
    );
    return { runId, name, scopeKey };
  });
}
