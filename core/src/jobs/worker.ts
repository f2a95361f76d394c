// The job runner: one graphile-worker task list and crontab built from every manifest. Each run gets a fork
// bound to its org and a job_runs row (queued -> running -> succeeded | failed).
import type { FastifyBaseLogger } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Logger, parseCronItems, run, type JobHelpers, type Runner, type TaskList } from 'graphile-worker';
import { Organization } from '../entities/organization.js';
import { JobRun } from '../entities/logs.js';
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
  const taskList: TaskList = {};
  for (const job of jobs) taskList[job.name] = (payload, helpers) => runTask(options, job, payload as Record<string, unknown>, helpers);
  const cron = jobs.filter((j) => j.cron).map((j) => ({
    task: j.name, match: j.cron!, identifier: j.name,
    options: { backfillPeriod: 0, maxAttempts: j.maxAttempts ?? DEFAULT_MAX_ATTEMPTS },
  }));
  // Our own pool, so shutdown can end it after the runner stopped (no idle client outlives the worker).
  // A pool with every client busy can neither take nor release jobs (graphile/worker#497): keep spares.
  const pool = createPool(options.connectionString, options.concurrency + 2, (err) => options.log.warn({ err }, 'job worker: a database connection failed'));
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

async function runTask(options: WorkerOptions, job: JobDecl & { module: string }, raw: Record<string, unknown>, helpers: JobHelpers) {
  const { orm, services, log } = options;
  const { [RUN_ID]: runId, [RUN_ORG]: orgId, _cron, ...payload } = raw ?? {};
  const attempt = helpers.job.attempts;
  const maxAttempts = helpers.job.max_attempts;
  const run = await openRun(orm, job, runId as number | undefined, (orgId as number | null) ?? null, payload, attempt);
  const jobLog = log.child({ job: job.name, run: run.id, org: run.orgId, attempt });

  const problem = payloadProblem(job, payload);
  if (problem) {
    // A bad payload will not get better on retry: fail the run for good.
    await finishRun(options, job, run, new Error(`Invalid payload: ${problem}`), true, jobLog);
    return;
  }
  const em = forkFor(orm, run.orgId);
  const org = run.orgId == null ? null : await em.findOne(Organization, run.orgId);
  if (run.orgId != null && !org) {
    await finishRun(options, job, run, new Error(`Org ${run.orgId} no longer exists`), true, jobLog);
    return;
  }
  if (org && !services.registry.isEnabled(org.modules, job.module)) {
    // The module was switched off after the job was queued: its jobs disappear with it.
    await orm.em.fork().nativeUpdate(JobRun, { id: run.id }, { status: 'skipped', error: `the ${job.module} module is off for this org`, finishedAt: new Date() }, { filters: false });
    return;
  }
  try {
    await job.handler({ em, org, payload, log: jobLog, services, attempt });
  } catch (err) {
    await finishRun(options, job, run, err, attempt >= maxAttempts, jobLog);
    throw err; // graphile-worker records the failure and schedules the retry
  }
  await finishRun(options, job, run, null, true, jobLog);
}

async function openRun(orm: MikroORM, job: JobDecl, runId: number | undefined, orgId: number | null, payload: Record<string, unknown>, attempt: number): Promise<RunRef> {
  const em = orm.em.fork();
  const now = new Date();
  if (runId == null) {
    // Cron runs are not started through startJob: record them here.
    const id = await em.insert(JobRun, { organization: null, name: job.name, status: 'running', payload, attempts: attempt, startedAt: now });
    return { id: id as number, orgId: null };
  }
  await em.nativeUpdate(JobRun, { id: runId }, { status: 'running', attempts: attempt, startedAt: now }, { filters: false });
  return { id: runId, orgId };
}

async function finishRun(options: WorkerOptions, job: JobDecl, run: RunRef, err: unknown, final: boolean, jobLog: FastifyBaseLogger) {
  const { orm, services } = options;
  const em = orm.em.fork();
  if (!err) {
    await em.nativeUpdate(JobRun, { id: run.id }, { status: 'succeeded', error: null, finishedAt: new Date() }, { filters: false });
    return;
  }
  const detail = err instanceof Error ? err.message : String(err);
  const line = final ? `job ${job.name} failed for good: ${detail}` : `job ${job.name} failed, will retry: ${detail}`;
  // The run's error and the job.failed event reach officers and outbound webhooks: no internals there.
  const message = storableText(publicMessage(err), 2000);
  jobLog.error({ err }, line);
  if (final) {
    // Logged and announced before the run is marked failed, so whoever waits for the run sees both.
    await services.logError({ orgId: run.orgId, source: 'job', origin: job.name, error: err, logLine: line });
    if (run.orgId != null) {
      await services.emit(em, { orgId: run.orgId, kind: 'job.failed', title: `Job ${job.name} failed`, message, data: { job: job.name, run: run.id } });
    }
  }
  // Between attempts the run stays queued, so a one-at-a-time job keeps its slot until it is done for good.
  await em.nativeUpdate(JobRun, { id: run.id }, final
    ? { status: 'failed', error: message, finishedAt: new Date() }
    : { status: 'queued', error: message }, { filters: false });
}

/** graphile-worker's own messages go to our logger (it would print to the console otherwise). */
function workerLogger(log: FastifyBaseLogger): Logger {
  return new Logger((scope) => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
    log[method]({ worker: scope, ...meta }, message);
  });
}
