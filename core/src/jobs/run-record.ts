// A run's job_runs row as the worker keeps it. A run that ends quickly goes from queued to its end in one statement,
// which also writes when it started; one still going after RUNNING_AFTER_MS is marked running first, so officers
// see long runs as running. Times come from the database's clock (the start is its `now()` minus the time the run
// took, measured here), so started_at <= finished_at whatever the process's clock says. The records are written on
// the worker's own pool, as the tables' owner (like graphile-worker's queue): the worker keeps every org's runs.
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { createPool, endPool } from '../db/pool.js';
import { prepared, sql } from '../db/sql.js';

/** How long a run may go on before its row says running. */
const RUNNING_AFTER_MS = 100;

// A later attempt of the same tick (a retry, or a re-run after its worker died) continues the tick's row.
const openCron = (name: string, payload: string, attempt: number, workerJobId: string) => prepared('quad_run_open_cron', sql`
  insert into job_runs (name, status, payload, attempts, started_at, worker_job_id) values (${name}, 'running', ${payload}::jsonb, ${attempt}, now(), ${workerJobId})
  on conflict (worker_job_id) where worker_job_id is not null
  do update set status = 'running', attempts = excluded.attempts, started_at = now(), finished_at = null
  returning id`);
// Never after a final status: the guard keeps a succeeded, failed or skipped run as it is.
const markRunning = (id: number, attempt: number, seconds: number) => prepared('quad_run_running', sql`update job_runs
  set status = 'running', attempts = ${attempt}, started_at = now() - make_interval(secs => ${seconds})
  where id = ${id} and status in ('queued', 'running')`);
// A null duration keeps the started_at written when the run was marked running. Back to queued (a retry will come)
// keeps the one-at-a-time slot and leaves finished_at empty.
const finish = (id: number, status: RunEnd['status'], error: string | null, attempt: number, seconds: number | null) => prepared('quad_run_finish', sql`
  update job_runs set status = ${status}, error = ${error}, attempts = ${attempt},
    started_at = coalesce(now() - make_interval(secs => ${seconds}::double precision), started_at),
    finished_at = case when ${status}::text = 'queued' then null else now() end
  where id = ${id}`);

export type RunEnd = { status: 'succeeded' } | { status: 'skipped' | 'failed' | 'queued'; error: string };

export class RunRecords {
  private readonly pool: pg.Pool;

  /**
   * The records have a pool of their own whose commits do not wait for the disk (synchronous_commit off): each
   * statement is followed by graphile-worker's completion or failure of the job, a synchronous commit whose flush
   * of the write-ahead log covers every record committed before it. A database crash can lose a record only
   * together with its job's completion, and then the job runs again. Statements are short: two connections do.
   */
  constructor(connectionString: string, private readonly log: FastifyBaseLogger) {
    const onError = (err: Error) => log.warn({ err }, 'job worker: a database connection of the run records failed');
    this.pool = createPool(withoutCommitWait(connectionString), 2, onError);
  }

  async end() {
    await endPool(this.pool);
  }

  /** A run started through startJob: its row is queued. */
  track(id: number, orgId: number | null, attempt: number): RunRecord {
    return new RunRecord(this.pool, this.log, id, orgId, attempt, false);
  }

  /**
   * Cron runs are not started through startJob: their row is made here, already running, at the tick's first
   * attempt, and found again by graphile-worker's job id at the next ones.
   */
  async openCron(name: string, payload: Record<string, unknown>, attempt: number, workerJobId: string): Promise<RunRecord> {
    const { rows } = await this.pool.query(openCron(name, JSON.stringify(payload), attempt, workerJobId));
    return new RunRecord(this.pool, this.log, Number(rows[0].id), null, attempt, true);
  }
}

/** The same database, with synchronous_commit off from each connection's start. */
function withoutCommitWait(connectionString: string): string {
  const url = new URL(connectionString);
  const options = url.searchParams.get('options');
  url.searchParams.set('options', `${options ? `${options} ` : ''}-c synchronous_commit=off`);
  return url.toString();
}

export class RunRecord {
  private readonly began = performance.now();
  private readonly timer: NodeJS.Timeout | null = null;
  /** The running mark, once sent; resolves to whether it changed the row. */
  private marking: Promise<boolean> | null;

  constructor(
    private readonly pool: pg.Pool, private readonly log: FastifyBaseLogger,
    readonly id: number, readonly orgId: number | null, private readonly attempt: number, runningAlready: boolean,
  ) {
    if (runningAlready) {
      this.marking = Promise.resolve(true);
      return;
    }
    this.marking = null;
    this.timer = setTimeout(() => this.markRunning(), RUNNING_AFTER_MS);
    this.timer.unref();
  }

  private seconds() {
    return (performance.now() - this.began) / 1000;
  }

  private markRunning() {
    this.marking = this.pool.query(markRunning(this.id, this.attempt, this.seconds())).then(
      (res) => res.rowCount === 1,
      (err: unknown) => {
        this.log.warn({ err, run: this.id }, 'job worker: could not mark a run running');
        return false;
      },
    );
  }

  /**
   * The run's end, sent after the running mark (if any) is done, so the two never cross: a mark that arrived
   * late would otherwise turn a run waiting for its retry back into a running one.
   */
  async finish(end: RunEnd) {
    if (this.timer) clearTimeout(this.timer);
    const marked = await this.marking;
    const error = end.status === 'succeeded' ? null : end.error;
    await this.pool.query(finish(this.id, end.status, error, this.attempt, marked ? null : this.seconds()));
  }
}
