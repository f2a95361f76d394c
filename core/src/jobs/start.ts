// Starting a job: check its payload, take the one-at-a-time slot, and enqueue it in the caller's transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { rawQueryOn } from '../db/orm.js';
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
  const rows = await rawQueryOn(em)<{ id: string }>({
    ...ENQUEUE,
    values: [orgId, name, scopeKey, JSON.stringify(payload), (options.runAt ?? new Date()).toISOString(), job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS],
  });
  if (rows.length === 0) {
    throw conflict(`${name} is already running${orgId != null ? ' for this org' : ''}; wait for it to finish`, 'job_running', { job: name });
  }
  return { runId: Number(rows[0]!.id), name, scopeKey };
}

const ENQUEUE = {
  name: 'quad_job_enqueue',
  text: `with run as (
  insert into job_runs (organization_id, name, scope_key, status, payload) values ($1::int, $2, $3, 'queued', $4::jsonb)
  on conflict (name, scope_key) where scope_key is not null and status in ('queued', 'running') do nothing
  returning id
)
select run.id from run, graphile_worker.add_job($2,
  ($4::jsonb || jsonb_build_object('${RUN_ID}', run.id, '${RUN_ORG}', $1::int))::json,
  run_at => $5::timestamptz, max_attempts => $6) as job`,
};
