// Starting a job: check its payload, take the one-at-a-time slot, and enqueue it in the caller's transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { rawQueryOn } from '../db/orm.js';
import { prepared, sql } from '../db/sql.js';
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
  // A key from the payload is the org's own when the run has one: two orgs' sources of one key are two slots.
  const scopeKey = job.once === 'org' ? `org:${orgId}`
    : typeof job.once === 'function' ? `${orgId != null ? `org:${orgId}:` : ''}key:${job.once(payload)}` : null;

  // One statement, on the caller's transaction when it has one (a rollback drops the run and the job together):
  // the run takes the one-at-a-time slot or, when the partial unique index job_runs_once says another queued or
  // running run holds it, inserts nothing, so add_job is not called and the caller's transaction stays usable.
  const rows = await rawQueryOn(em)<{ id: string }>(enqueue({
    orgId, name, scopeKey, payload: JSON.stringify(payload), runAt: (options.runAt ?? new Date()).toISOString(), maxAttempts: job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
  }));
  if (rows.length === 0) {
    throw conflict(`${name} is already running${orgId != null ? ' for this org' : ''}; wait for it to finish`, 'job_running', { job: name });
  }
  return { runId: Number(rows[0]!.id), name, scopeKey };
}

interface Enqueued { orgId: number | null; name: string; scopeKey: string | null; payload: string; runAt: string; maxAttempts: number }

const enqueue = (run: Enqueued) => prepared('quad_job_enqueue', sql`
  with run as (
    insert into job_runs (organization_id, name, scope_key, status, payload) values (${run.orgId}::int, ${run.name}, ${run.scopeKey}, 'queued', ${run.payload}::jsonb)
    on conflict (name, scope_key) where scope_key is not null and status in ('queued', 'running') do nothing
    returning id
  )
  select run.id from run, graphile_worker.add_job(${run.name}::text,
    (${run.payload}::jsonb || jsonb_build_object(${RUN_ID}::text, run.id, ${RUN_ORG}::text, ${run.orgId}::int))::json,
    run_at => ${run.runAt}::timestamptz, max_attempts => ${run.maxAttempts}::int) as job`);
