// The job runner: one graphile-worker task list and crontab built from every manifest. Each run gets a fork
// bound to its org and a job_runs row (queued -> running -> succeeded | failed).
import type { FastifyBaseLogger } from 'fastify';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { Logger, parseCronItems, run, type JobHelpers, type Runner, type TaskList } from 'graphile-worker';
import { Organization, type OrganizationEntity } from '../entities/organization.js';
import { forkFor } from '../db/orm.js';
import { createPool } from '../db/pool.js';
import { storableText } from '../db/storable-text.js';
import { publicMessage } from '../http/errors.js';
import type { JobDecl } from '../modules/types.js';
import type { CoreServices } from '../services.js';
import { payloadProblem } from './payload.js';
import { DEFAULT_MAX_ATTEMPTS, RUN_ID, RUN_ORG } from './start.js';

export interface WorkerOptions {
  connectionString: string;
  orm: MikroORM;
  services: CoreServices;
  log: FastifyBaseLogger;
  concurrency: number;
}

type RunRef = { id: number; orgId: number | null };

export interface Worker { runner: Runner; stop(): Promise<void> }

export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const { services } = options;
  const jobs = [...services.registry.jobs.values()];
  const cron = jobs.filter((j) => j.cron).map((j) => ({
    task: j.name, match: j.cron!, identifier: j.name,
    options: { backfillPeriod: 0, maxAttempts: j.maxAttempts ?? DEFAULT_MAX_ATTEMPTS },
  }));
  // Our own pool, so shutdown can end it after the runner stopped (no idle client outlives the worker).
  // A pool with every client busy can neither take nor release jobs (graphile/worker#497): keep spares.
  // Runs start and finish on it too: one statement at a time per running job, between graphile-worker's own.
  const pool = createPool(options.connectionString, options.concurrency + 2, (err) => options.log.warn({ err }, 'job worker: a database connection failed'));
  const runs = new RunStore(pool);
  const taskList: TaskList = {};
  for (const job of jobs) taskList[job.name] = (payload, helpers) => runTask(options, runs, job, payload as Record<string, unknown>, helpers);
  const runner = await run({
    pgPool: pool,
    concurrency: options.concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList,
    parsedCronItems: parseCronItems(cron),
    logger: workerLogger(options.log),
  }).catch(async (err) => {
    await pool.end();
    throw err;
  });
  return {
    runner,
    async stop() {
      await runner.stop(); // running jobs finish and release their locks
      await pool.end();
    },
  };
}

async function runTask(options: WorkerOptions, runs: RunStore, job: JobDecl & { module: string }, raw: Record<string, unknown>, helpers: JobHelpers) {
  const { orm, services, log } = options;
  const { [RUN_ID]: runId, [RUN_ORG]: orgId, _cron, ...payload } = raw ?? {};
  const attempt = helpers.job.attempts;
  const maxAttempts = helpers.job.max_attempts;
  const em = forkFor(orm, (orgId as number | null) ?? null);
  const { run, org } = await runs.open(em, job, runId as number | undefined, (orgId as number | null) ?? null, payload, attempt);
  const jobLog = log.child({ job: job.name, run: run.id, org: run.orgId, attempt });

  const problem = payloadProblem(job, payload);
  if (problem) {
    // A bad payload will not get better on retry: fail the run for good.
    await finishRun(options, runs, job, run, new Error(`Invalid payload: ${problem}`), true, jobLog);
    return;
  }
  if (run.orgId != null && !org) {
    await finishRun(options, runs, job, run, new Error(`Org ${run.orgId} no longer exists`), true, jobLog);
    return;
  }
  if (org && !services.registry.isEnabled(org.modules, job.module)) {
    // The module was switched off after the job was queued: its jobs disappear with it.
    await runs.skip(run.id, `the ${job.module} module is off for this org`);
    return;
  }
  try {
    await job.handler({ em, org, payload, log: jobLog, services, attempt });
  } catch (err) {
    await finishRun(options, runs, job, run, err, attempt >= maxAttempts, jobLog);
    throw err; // graphile-worker records the failure and schedules the retry
  }
  await runs.succeed(run.id);
}

/**
 * The job_runs statements of a run, in raw SQL on the worker's own pool: one to start it (and read its org), one to
 * finish it. Times come from the database's clock, so started_at <= finished_at whatever the process's clock says.
 */
class RunStore {
  constructor(private readonly pool: pg.Pool) {}

  /** Marks the run running (or records a cron run) and reads its org in the same statement; the org joins `em`. */
  async open(em: EntityManager, job: JobDecl, runId: number | undefined, orgId: number | null, payload: Record<string, unknown>, attempt: number): Promise<{ run: RunRef; org: OrganizationEntity | null }> {
    if (runId == null) {
      // Cron runs are not started through startJob: record them here.
      const { rows } = await this.pool.query(
        "insert into job_runs (name, status, payload, attempts, started_at) values ($1, 'running', $2, $3, now()) returning id",
        [job.name, JSON.stringify(payload), attempt],
      );
      return { run: { id: Number(rows[0].id), orgId: null }, org: null };
    }
    const { rows } = await this.pool.query(
      `with started as (update job_runs set status = 'running', attempts = $2, started_at = now() where id = $1)
       select * from organizations where id = $3`,
      [runId, attempt, orgId],
    );
    return { run: { id: runId, orgId }, org: rows[0] ? em.map(Organization, rows[0]) : null };
  }

  async succeed(runId: number) {
    await this.pool.query("update job_runs set status = 'succeeded', error = null, finished_at = now() where id = $1", [runId]);
  }

  async skip(runId: number, reason: string) {
    await this.pool.query("update job_runs set status = 'skipped', error = $2, finished_at = now() where id = $1", [runId, reason]);
  }

  /** Failed for good, or back to queued until the next attempt (a one-at-a-time job keeps its slot meanwhile). */
  async fail(runId: number, message: string, final: boolean) {
    await this.pool.query(final
      ? "update job_runs set status = 'failed', error = $2, finished_at = now() where id = $1"
      : "update job_runs set status = 'queued', error = $2 where id = $1", [runId, message]);
  }
}

async function finishRun(options: WorkerOptions, runs: RunStore, job: JobDecl, run: RunRef, err: unknown, final: boolean, jobLog: FastifyBaseLogger) {
  const { orm, services } = options;
  const detail = err instanceof Error ? err.message : String(err);
  const line = final ? `job ${job.name} failed for good: ${detail}` : `job ${job.name} failed, will retry: ${detail}`;
  // The run's error and the job.failed event reach officers and outbound webhooks: no internals there.
  const message = storableText(publicMessage(err), 2000);
  jobLog.error({ err }, line);
  if (final) {
    // Logged and announced before the run is marked failed, so whoever waits for the run sees both.
    await services.logError({ orgId: run.orgId, source: 'job', origin: job.name, error: err, logLine: line });
    if (run.orgId != null) {
      await services.emit(orm.em.fork(), { orgId: run.orgId, kind: 'job.failed', title: `Job ${job.name} failed`, message, data: { job: job.name, run: run.id } });
    }
  }
  await runs.fail(run.id, message, final);
}

/** graphile-worker's own messages go to our logger (it would print to the console otherwise). */
function workerLogger(log: FastifyBaseLogger): Logger {
  return new Logger((scope) => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
    log[method]({ worker: scope, ...meta }, message);
  });
}
