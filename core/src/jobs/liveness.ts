// Jobs left locked by a worker process that died. graphile-worker (0.17) keeps such a job locked for four hours
// before another worker may take it. So each worker process holds a session advisory lock named after its pool's
// id (the id graphile-worker writes in jobs.locked_by) on a connection of its own for as long as it lives, and
// PostgreSQL frees that lock the moment the process's connection dies (a killed process's sockets close with it).
// Every worker sweeps now and then: an owner of locked jobs whose advisory lock is free on two sweeps in a row has
// died; its jobs are unlocked and run again at once, and the runs that were on their last attempt fail for good.
// Two sweeps, because a live worker whose lock connection dropped (PostgreSQL restarted) takes its lock again
// within one sweep interval.
import type { FastifyBaseLogger } from 'fastify';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CoreServices } from '../core-services.js';
import pg from 'pg';
import { rawQueryOn } from '../db/orm.js';
import { prepared, sql } from '../db/sql.js';
import { RUN_ID, RUN_ORG } from './start.js';

/** The advisory lock key of a worker pool id, the same in SQL wherever it is computed. */
const WORKER_KEY = (idSql: string) => `('x' || left(md5('quad-worker:' || ${idSql}), 16))::bit(64)::bigint`;

/** How soon a worker takes its lock again after its lock connection dropped. */
const RELOCK_MS = 250;

/** Holds a worker pool's advisory lock while the process lives, taking it again after a lost connection. */
export class WorkerLock {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly url: string, private readonly poolId: string, private readonly log: FastifyBaseLogger) {}

  /** Resolves once the lock is held (start-up fails if the database cannot be reached). */
  async start() {
    await this.take();
  }

  private async take() {
    const client = new pg.Client({ connectionString: this.url });
    client.on('error', () => void this.lost(client));
    try {
      await client.connect();
      await client.query(`select pg_advisory_lock(${WORKER_KEY('$1')})`, [this.poolId]);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    if (this.stopped) return void await client.end().catch(() => {});
    this.client = client;
  }

  private lost(client: pg.Client) {
    if (this.client !== client) return;
    this.client = null;
    this.log.warn('job worker: lost the connection that shows it is alive; taking its lock again');
    this.retry();
  }

  private retry() {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.take().catch((err) => {
        this.log.warn({ err }, 'job worker: could not take its liveness lock again; retrying');
        this.retry();
      });
    }, RELOCK_MS);
    this.timer.unref();
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {}); // frees the lock
  }
}

/** Owners of locked jobs (other than this pool) whose liveness lock nobody holds right now. */
const UNHELD_OWNERS = `select owner from (
    select locked_by as owner from graphile_worker._private_jobs where locked_by is not null
    union select locked_by from graphile_worker._private_job_queues where locked_by is not null
  ) owners
  where owner <> $1 and pg_try_advisory_xact_lock(${WORKER_KEY('owner')})`;

/**
 * The dead owners this sweeper releases: each is claimed with its own lock key for the transaction, so of several
 * sweepers one releases an owner (and announces its lost runs once), and a worker that took its lock again is left.
 */
const CLAIM = {
  name: 'quad_sweep_claim',
  text: `select owner from unnest($1::text[]) as owner where pg_try_advisory_xact_lock(${WORKER_KEY('owner')})`,
};

/** The dead owners' jobs that were on their last attempt: they will not run again. */
const EXHAUSTED = {
  name: 'quad_sweep_exhausted',
  text: `select jobs.id, (jobs.payload::jsonb ->> '${RUN_ID}')::bigint as run_id,
    (jobs.payload::jsonb ->> '${RUN_ORG}')::int as org_id, tasks.identifier as name
  from graphile_worker._private_jobs jobs join graphile_worker._private_tasks tasks on tasks.id = jobs.task_id
  where jobs.locked_by = any($1) and jobs.attempts >= jobs.max_attempts`,
};
const UNLOCK = { name: 'quad_sweep_unlock', text: 'select graphile_worker.force_unlock_workers($1::text[])' };
const FAIL_JOBS = { name: 'quad_sweep_fail_jobs', text: 'select from graphile_worker.permanently_fail_jobs($1::bigint[], $2)' };
// The runs' rows: by run id (started through startJob), or by the job's id (a cron tick's row).
const failRuns = (runIds: (string | null)[], error: string, jobIds: string[]) => prepared('quad_sweep_fail_runs', sql`
  update job_runs set status = 'failed', error = ${error}, finished_at = now()
  where (id = any(${runIds}::bigint[]) or worker_job_id = any(${jobIds}::bigint[])) and status in ('queued', 'running')
  returning id, worker_job_id`);

/** A run whose worker died during its last attempt. */
export interface LostRun { runId: number | null; orgId: number | null; name: string }

export const LOST_RUN_ERROR = 'the worker process running its last attempt stopped';

export interface SweepOptions {
  /** The worker's pool, for the looks. */
  pool: pg.Pool;
  /** For the release: one transaction across orgs with the lost runs' announcements. */
  services: Pick<CoreServices, 'acrossOrgs'>;
  /** This process's pool id: never swept. */
  ownId: string;
  intervalMs: number;
  log: FastifyBaseLogger;
  /** Told, in the release's transaction, of runs that fail for good because their worker died. */
  onLost(em: EntityManager, runs: LostRun[]): Promise<void>;
}

export interface Sweeper { stop(): Promise<void> }

export function startSweeper(options: SweepOptions): Sweeper {
  let suspects = new Set<string>();
  let running: Promise<string[]> | null = null;

  async function sweep(): Promise<string[]> {
    const { rows } = await options.pool.query<{ owner: string }>(UNHELD_OWNERS, [options.ownId]);
    const unheld = new Set(rows.map((r) => r.owner));
    const dead = [...unheld].filter((owner) => suspects.has(owner));
    suspects = unheld;
    if (dead.length > 0) await release(dead);
    return dead;
  }

  async function release(dead: string[]) {
    const released = await options.services.acrossOrgs('core.job_sweep', async ({ em }) => {
      const query = rawQueryOn(em);
      const owners = (await query<{ owner: string }>({ ...CLAIM, values: [dead] })).map((r) => r.owner);
      if (owners.length === 0) return owners;
      const exhausted = await query<{ id: string; run_id: string | null; org_id: number | null; name: string }>({ ...EXHAUSTED, values: [owners] });
      await query({ ...UNLOCK, values: [owners] });
      if (exhausted.length > 0) {
        await query({ ...FAIL_JOBS, values: [exhausted.map((j) => j.id), LOST_RUN_ERROR] });
        const [started, cron] = [exhausted.filter((j) => j.run_id != null), exhausted.filter((j) => j.run_id == null)];
        const failed = await query<{ id: string; worker_job_id: string | null }>(failRuns(started.map((j) => j.run_id), LOST_RUN_ERROR, cron.map((j) => j.id)));
        // Only runs this transaction failed are announced, never twice for one run; a cron tick is announced with
        // its row when it had one (its worker may have died before writing it).
        const ours = new Set(failed.map((r) => String(r.id)));
        const cronRows = new Map(failed.filter((r) => r.worker_job_id != null).map((r) => [String(r.worker_job_id), Number(r.id)]));
        const lost = [...started.filter((j) => ours.has(String(j.run_id))), ...cron];
        await options.onLost(em, lost.map((j) => ({
          runId: j.run_id != null ? Number(j.run_id) : cronRows.get(String(j.id)) ?? null, orgId: j.org_id, name: j.name,
        })));
      }
      return owners;
    });
    if (released.length > 0) options.log.warn({ workers: released }, 'job worker: unlocked the jobs of worker processes that stopped without finishing them');
  }

  const timer = setInterval(() => {
    if (running) return;
    running = sweep()
      .catch((err) => {
        options.log.warn({ err }, 'job worker: the sweep for jobs of stopped workers failed');
        return [];
      })
      .finally(() => { running = null; });
  }, options.intervalMs);
  timer.unref();

  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
