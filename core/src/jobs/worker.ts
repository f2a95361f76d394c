// The job runner: one graphile-worker task list and crontab built from every manifest. Each run gets a fork
// bound to its org and a job_runs row (queued -> running -> succeeded | failed | skipped; see run-record.ts).
import { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { Logger, parseCronItems, run, type JobHelpers, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import { Organization, type OrganizationEntity } from '../entities/organization.js';
import { forkFor } from '../db/orm.js';
import { createPool, endPool } from '../db/pool.js';
import { storableText } from '../db/storable-text.js';
import { publicMessage } from '../http/errors.js';
import type { JobDecl } from '../modules/types.js';
import type { OrgCache } from '../orgs/org-cache.js';
import type { CoreServices } from '../services.js';
import type { JobOutcome, Metrics } from '../metrics/metrics.js';
import { LOST_RUN_ERROR, startSweeper, WorkerLock, type LostRun } from './liveness.js';
import { payloadProblem } from './payload.js';
import { RunRecords, type RunRecord } from './run-record.js';
import { DEFAULT_MAX_ATTEMPTS, RUN_ID, RUN_ORG } from './start.js';
import { withDb } from '../db/org-db.js';

export interface WorkerOptions {
  connectionString: string;
  orm: MikroORM;
  services: CoreServices;
  /** The process's org cache: a run's org is read from it, as an org route's is. */
  orgs: OrgCache;
  log: FastifyBaseLogger;
  concurrency: number;
  /** How often this worker looks for jobs locked by a worker process that died (see liveness.ts). */
  sweepMs: number;
  /** Where each run's outcome and time are recorded. Default: nowhere. */
  metrics?: Metrics;
}

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
  const pool = createPool(options.connectionString, options.concurrency + 2, (err) => options.log.warn({ err }, 'job worker: a database connection failed'));
  const runs = new RunRecords(options.connectionString, options.log);
  const taskList: TaskList = {};
  for (const job of jobs) taskList[job.name] = (payload, helpers) => measured(options, job, helpers, () => runTask(options, runs, job, payload as Record<string, unknown>, helpers));
  // graphile-worker names the pool it locks jobs with (jobs.locked_by) only through this event.
  const events: WorkerEvents = new EventEmitter();
  let poolId: string | null = null;
  events.once('pool:create', ({ workerPool }) => { poolId = workerPool.id; });
  const runner = await run({
    pgPool: pool,
    events,
    concurrency: options.concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList,
    parsedCronItems: parseCronItems(cron),
    logger: workerLogger(options.log),
  }).catch(async (err) => {
    await endPools();
    throw err;
  });
  const lock = new WorkerLock(options.connectionString, poolId!, options.log);
  await lock.start().catch(async (err) => {
    await runner.stop();
    await endPools();
    throw err;
  });
  const sweeper = startSweeper({
    pool, services: options.services, ownId: poolId!, intervalMs: options.sweepMs, log: options.log,
    onLost: async (em, lost) => {
      for (const run of lost) await announceFailure(options.services, em, { ...run, error: new Error(LOST_RUN_ERROR), message: LOST_RUN_ERROR });
    },
  });
  // The id other workers' logs name when this process dies with jobs locked.
  options.log.info({ pool: poolId }, 'job worker started');
  return {
    runner,
    async stop() {
      await sweeper.stop();
      await runner.stop(); // running jobs finish and release their locks
      await lock.stop();
      await endPools();
    },
  };

  async function endPools() {
    await endPool(pool);
    await runs.end();
  }
}

/** A run failed for good: written to the error log and, for an org's run, announced as `job.failed`. */
async function announceFailure(services: CoreServices, em: EntityManager, run: LostRun & { error: unknown; message: string }) {
  const detail = run.error instanceof Error ? run.error.message : String(run.error);
  await services.logError({ orgId: run.orgId, source: 'job', origin: run.name, error: run.error, logLine: `job ${run.name} failed for good: ${detail}` });
  if (run.orgId != null) {
    await services.emit(em, { orgId: run.orgId, kind: 'job.failed', title: `Job ${run.name} failed`, message: run.message, data: { job: run.name, run: run.runId } });
  }
}

/**
 * Run one attempt and record its outcome and time (quad_jobs_total, quad_job_duration_seconds). An attempt that
 * throws is `retrying` while graphile-worker has attempts left, `failed` on its last one.
 */
async function measured(options: WorkerOptions, job: JobDecl, helpers: JobHelpers, attempt: () => Promise<JobOutcome>) {
  const began = performance.now();
  let outcome: JobOutcome = helpers.job.attempts >= helpers.job.max_attempts ? 'failed' : 'retrying';
  try {
    outcome = await attempt();
  } finally {
    options.metrics?.jobFinished(job.name, outcome, (performance.now() - began) / 1000);
  }
}

/** One attempt of a run: how it ended, or the handler's error thrown on (graphile-worker retries it). */
async function runTask(options: WorkerOptions, runs: RunRecords, job: JobDecl & { module: string }, raw: Record<string, unknown>, helpers: JobHelpers): Promise<JobOutcome> {
  const { orm, services, log } = options;
  const { [RUN_ID]: runId, [RUN_ORG]: orgId, _cron, ...payload } = raw ?? {};
  const attempt = helpers.job.attempts;
  const maxAttempts = helpers.job.max_attempts;
  const run = runId == null
    ? await runs.openCron(job.name, payload, attempt, helpers.job.id)
    : runs.track(runId as number, (orgId as number | null) ?? null, attempt);
  const em = forkFor(orm, run.orgId);
  const org = run.orgId == null ? null : await orgEntity(options.orgs, em, run.orgId);
  const jobLog = log.child({ job: job.name, run: run.id, org: run.orgId, attempt });

  const problem = payloadProblem(job, payload);
  if (problem) {
    // A bad payload will not get better on retry: fail the run for good.
    await finishRun(options, job, run, new Error(`Invalid payload: ${problem}`), true, jobLog);
    return 'failed';
  }
  if (run.orgId != null && !org) {
    await finishRun(options, job, run, new Error(`Org ${run.orgId} no longer exists`), true, jobLog);
    return 'failed';
  }
  if (org && !services.registry.isEnabled(org.modules, job.module)) {
    // The module was switched off after the job was queued: its jobs disappear with it.
    await run.finish({ status: 'skipped', error: `the ${job.module} module is off for this org` });
    return 'skipped';
  }
  try {
    // graphile-worker's job id: kept across attempts, new for every run (cron ticks included).
    await job.handler(withDb({ em, org, payload, log: jobLog, services, attempt, runKey: `job:${helpers.job.id}` }));
  } catch (err) {
    await finishRun(options, job, run, err, attempt >= maxAttempts, jobLog);
    throw err; // graphile-worker records the failure and schedules the retry
  }
  await run.finish({ status: 'succeeded' });
  return 'succeeded';
}

/**
 * The run's org from the process's org cache (kept fresh by the organizations trigger's NOTIFY, like an org
 * route's), as an entity of the run's fork: a handler may pass it as a reference or change it and flush.
 */
async function orgEntity(orgs: OrgCache, em: EntityManager, orgId: number): Promise<OrganizationEntity | null> {
  const snapshot = await orgs.find(String(orgId));
  return snapshot ? em.merge(Organization, structuredClone(snapshot) as OrganizationEntity) : null;
}

async function finishRun(options: WorkerOptions, job: JobDecl, run: RunRecord, err: unknown, final: boolean, jobLog: FastifyBaseLogger) {
  const { orm, services } = options;
  const detail = err instanceof Error ? err.message : String(err);
  const line = final ? `job ${job.name} failed for good: ${detail}` : `job ${job.name} failed, will retry: ${detail}`;
  // The run's error and the job.failed event reach officers and outbound webhooks: no internals there.
  const message = storableText(publicMessage(err), 2000);
  jobLog.error({ err }, line);
  if (final) {
    // Logged and announced before the run is marked failed, so whoever waits for the run sees both.
    await announceFailure(services, forkFor(orm, run.orgId), { orgId: run.orgId, runId: run.id, name: job.name, error: err, message });
  }
  // Failed for good, or back to queued until the next attempt (a one-at-a-time job keeps its slot meanwhile).
  await run.finish({ status: final ? 'failed' : 'queued', error: message });
}

/** graphile-worker's own messages go to our logger (it would print to the console otherwise). */
function workerLogger(log: FastifyBaseLogger): Logger {
  return new Logger((scope) => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
    log[method]({ worker: scope, ...meta }, message);
  });
}
