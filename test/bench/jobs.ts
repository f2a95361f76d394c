// Jobs benchmark, measured in one run on one fresh database and the same worker concurrency:
//   throughput: N trivial jobs enqueued by 10 concurrent callers, jobs/s from the first enqueue to the last handler
//     (the median of alternating rounds, as other work on the machine comes and goes),
//     (a) raw graphile-worker: WorkerUtils.addJob + a task that only counts,
//     (b) Quad: services.startJob + a job whose handler only counts, spread over many orgs, and (c) all in one org;
//   latency: one job at a time, from before the add/start call until its handler begins, p50 and p95.
// Prints b/a and c/a. Run: npm run bench:jobs [-- --jobs 1000 --rounds 3 --latency 200 --concurrency 4]
import { parseArgs } from 'node:util';
import { Logger, makeWorkerUtils, run } from 'graphile-worker';
import { defineJob, defineModule } from '@quad/core';
import { createPool } from '../../core/src/db/pool.js';
import { startWorker } from '../../core/src/jobs/worker.js';
import { createLogger } from '../../core/src/log.js';
import { CORE_MODULES } from '../../core/src/modules/load.js';
import { createTestDatabase, startTestApp } from '@quad/core/testing';

const { values } = parseArgs({ options: {
  jobs: { type: 'string', default: '1000' }, latency: { type: 'string', default: '200' },
  concurrency: { type: 'string', default: '4' }, orgs: { type: 'string', default: '50' }, rounds: { type: 'string', default: '3' },
} });
const N = Number(values.jobs);
const LATENCY_SAMPLES = Number(values.latency);
const CONCURRENCY = Number(values.concurrency);
const ORGS = Number(values.orgs);
const ROUNDS = Number(values.rounds);
const CALLERS = 10;

/** The trivial handler both sides run: count, and wake whoever waits for this job's start. */
let done = 0;
let onStart: ((at: number) => void) | null = null;
let onAllDone: (() => void) | null = null;
let target = 0;
function handle() {
  onStart?.(performance.now());
  onStart = null;
  if (++done === target) onAllDone?.();
}

const benchJob = defineJob({ name: 'bench.noop', async handler() { handle(); } });
const bench = defineModule({ name: 'bench', title: 'Bench', description: 'Benchmark job', category: 'Tests', jobs: [benchJob] });

/** jobs/s for N jobs sent by CALLERS concurrent callers of `add(i)`. */
async function throughput(add: (i: number) => Promise<unknown>): Promise<number> {
  done = 0;
  target = N;
  const all = new Promise<void>((r) => { onAllDone = r; });
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: CALLERS }, async () => {
    while (next < N) await add(next++);
  }));
  await all;
  return N / ((performance.now() - t0) / 1000);
}

interface Latency { p50: number; p95: number; addP50: number }

/** add→start in ms, one job at a time: p50, p95, and the p50 of the add call alone. */
async function latency(add: (i: number) => Promise<unknown>): Promise<Latency> {
  const total: number[] = [];
  const adding: number[] = [];
  target = -1;
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const started = new Promise<number>((r) => { onStart = r; });
    const t0 = performance.now();
    await add(i);
    adding.push(performance.now() - t0);
    total.push((await started) - t0);
  }
  return { p50: quantile(total, 0.5), p95: quantile(total, 0.95), addP50: quantile(adding, 0.5) };
}

function quantile(samples: number[], q: number) {
  const sorted = [...samples].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const db = await createTestDatabase([...CORE_MODULES, bench]);
const teardowns: (() => unknown)[] = [];
try {
  console.log(`${N} jobs by ${CALLERS} concurrent callers, worker concurrency ${CONCURRENCY}, ${ROUNDS} alternating rounds (medians); ` +
    `latency over ${LATENCY_SAMPLES} jobs one at a time`);
  // A Quad process without its own worker: each round starts Quad's worker (startWorker, as a worker process does)
  // or a raw graphile-worker runner, never both, so neither takes the other's notifications.
  const quad = await startTestApp({ teardown: (fn) => teardowns.push(fn) }, { plugins: [bench], role: 'api', databaseUrl: db.url });
  const orgs: { id: number }[] = [];
  for (let i = 0; i < ORGS; i++) orgs.push(await quad.createOrg({ prefix: `org${i}`, modules: { bench: true } }));
  const start = (orgId: (i: number) => number) => (i: number) =>
    quad.services.startJob(quad.orm.em.fork(), 'bench.noop', {}, { orgId: orgId(i) });
  const manyOrgs = start((i) => orgs[i % orgs.length]!.id);
  const oneOrg = start(() => orgs[0]!.id);

  async function withRaw<T>(fn: (add: (i: number) => Promise<unknown>) => Promise<T>): Promise<T> {
    // (a) raw graphile-worker, the same run() options as Quad's worker.
    const pool = createPool(db.url, CONCURRENCY + 2);
    const runner = await run({ pgPool: pool, concurrency: CONCURRENCY, noHandleSignals: true, pollInterval: 1000, taskList: { bench_raw: async () => { handle(); } }, logger: silentLogger() });
    const utils = await makeWorkerUtils({ pgPool: pool, logger: silentLogger() });
    try {
      return await fn((i) => utils.addJob('bench_raw', { i }));
    } finally {
      await utils.release();
      await runner.stop();
      await pool.end();
    }
  }
  async function withQuad<T>(fn: () => Promise<T>): Promise<T> {
    const worker = await startWorker({ connectionString: db.url, orm: quad.orm, services: quad.services, orgs: quad.orgs, log: createLogger('silent'), concurrency: CONCURRENCY, sweepMs: quad.services.settings.JOB_SWEEP_MS });
    try {
      return await fn();
    } finally {
      await worker.stop();
    }
  }

  const rates: Record<'a' | 'b' | 'c', number[]> = { a: [], b: [], c: [] };
  await withRaw(throughput); // warm-up
  await withQuad(() => throughput(manyOrgs));
  for (let round = 0; round < ROUNDS; round++) {
    rates.a.push(await withRaw(throughput));
    rates.b.push(await withQuad(() => throughput(manyOrgs)));
    rates.c.push(await withQuad(() => throughput(oneOrg)));
  }
  const aLat = await withRaw(latency);
  const bLat = await withQuad(() => latency(manyOrgs));

  const [a, b, c] = [quantile(rates.a, 0.5), quantile(rates.b, 0.5), quantile(rates.c, 0.5)];
  const each = (xs: number[]) => `(${xs.map((x) => x.toFixed(0)).join(', ')})`;
  const row = (label: string, rate: number, xs: number[], lat?: Latency) => console.log(`${label.padEnd(42)} ${rate.toFixed(0).padStart(5)} jobs/s ${each(xs).padEnd(16)}${
    lat ? ` add→start p50 ${lat.p50.toFixed(1)} ms, p95 ${lat.p95.toFixed(1)} ms (the add call alone: p50 ${lat.addP50.toFixed(1)} ms)` : ''}`);
  row('(a) raw graphile-worker (addJob + task)', a, rates.a, aLat);
  row(`(b) Quad startJob + handler, ${ORGS} orgs`, b, rates.b, bLat);
  row('(c) Quad startJob + handler, one org', c, rates.c);
  console.log(`b/a = ${(b / a).toFixed(2)}   c/a = ${(c / a).toFixed(2)}`);
} finally {
  for (const fn of teardowns.reverse()) await fn();
  await db.drop();
}

/** graphile-worker's default logger prints to the console; the benchmark prints only its table. */
function silentLogger() {
  return new Logger(() => () => {});
}
