// Shared by the HTTP benchmarks: the servers run in a child process (so the load generator does not share their
// event loop), the parent measures each target with autocannon on loopback and prints a table.
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import autocannon, { type Request } from 'autocannon';

export interface Target {
  label: string; url: string; method?: 'GET' | 'POST'; body?: object; headers?: Record<string, string>;
  /** Bearer tokens presented in turn, one per request (calls spread over the tokens' orgs). */
  tokens?: string[];
  /** autocannon's request sequence (e.g. a setupRequest that varies the token per request). */
  requests?: Request[];
}

/** Child side: start the servers, hand their targets to the parent, and tear down when told. */
export async function serveTargets<T>(start: (teardown: (fn: () => unknown) => void) => Promise<T>) {
  const teardowns: (() => unknown)[] = [];
  const targets = await start((fn) => teardowns.push(fn));
  process.send!(targets);
  process.once('message', async () => {
    for (const fn of teardowns.reverse()) await fn();
    process.exit(0);
  });
}

function rotateBearer(tokens: string[]) {
  let next = 0;
  return (request: Request): Request => {
    request.headers = { ...request.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` };
    return request;
  };
}

/** autocannon's `warmup` option (documented in its README; missing from @types/autocannon). */
type WithWarmup = autocannon.Options & { warmup?: { connections: number; duration: number } };

/**
 * One measurement of `target`: req/s over `seconds`, after `warmup` seconds unmeasured (so the JIT has compiled its
 * path, and pools have their connections, before the count starts).
 */
async function measure(target: Target, seconds: number, connections: number, warmup: number): Promise<number> {
  const options: WithWarmup = {
    url: target.url, method: target.method ?? 'GET', connections, duration: seconds,
    warmup: { connections, duration: warmup },
    headers: { ...(target.body && { 'content-type': 'application/json' }), ...target.headers },
    ...(target.body && { body: JSON.stringify(target.body) }),
    ...(target.requests ? { requests: target.requests } : target.tokens && { requests: [{ setupRequest: rotateBearer(target.tokens) }] }),
  };
  const result = await autocannon(options);
  if (result.non2xx || result.errors) throw new Error(`${target.label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
}

/** The middle value (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Each target's req/s in every round. A machine's speed drifts by tens of percent within minutes (other tenants,
 * frequency scaling), so one measurement per target, minutes apart, compares two machines: the targets are
 * measured in turn, round after round, and a ratio is the median of the ratios within each round (see `ratio`).
 */
export type Rounds = Record<string, number[]>;

/** The median over rounds of a[i] / b[i]: each round's two measurements were taken seconds apart. */
export const ratio = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]));

const fmt = (rate: number) => rate.toFixed(0).padStart(7);

/** `--rounds` and `--seconds` (per target and round), and `--connections`, with the benchmarks' defaults. */
function roundOptions() {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '3' }, rounds: { type: 'string', default: '3' }, connections: { type: 'string', default: '10' } },
    strict: false,
  });
  return { seconds: Number(values.seconds), rounds: Number(values.rounds), connections: Number(values.connections) };
}

/** Warm-up before a measurement: longer in the first round, when the path runs for the first time. */
const warmupFor = (round: number) => (round === 0 ? 2 : 1);

/**
 * Parent side: fork `script --serve`, measure the targets it returns in turn, `--rounds` times; prints each target's
 * median req/s with every round's, and returns every round's by label.
 */
export async function measureTargets<T>(script: string, pick: (served: T) => Target[], after?: (served: T) => Promise<void>): Promise<Rounds> {
  const { seconds, rounds, connections } = roundOptions();
  return withServer<T, Rounds>(script, async (served) => {
    console.log(`autocannon: ${connections} connections, ${rounds} rounds of ${seconds} s per target (targets in turn), loopback`);
    const targets = pick(served);
    const rates: Rounds = Object.fromEntries(targets.map((t) => [t.label, []]));
    for (let round = 0; round < rounds; round++) {
      for (const target of targets) rates[target.label].push(await measure(target, seconds, connections, warmupFor(round)));
    }
    for (const target of targets) {
      const all = rates[target.label];
      console.log(`${target.label.padEnd(62)} ${fmt(median(all))} req/s   rounds: ${all.map((r) => r.toFixed(0)).join(' ')}`);
    }
    await after?.(served);
    return rates;
  });
}

/**
 * Fork `script --serve` (with `args`), run `run` on what it serves, then stop it. The server runs the way this process
 * runs (plain node on the compiled tree under `npm run bench:*`, as production runs compiled code; tsx when a
 * benchmark is started from its source), with `nodeOptions` added.
 */
export async function withServer<T, R>(script: string, run: (served: T) => Promise<R>, args: string[] = [], nodeOptions: string[] = []): Promise<R> {
  const child = fork(script, ['--serve', ...args], { execArgv: [...process.execArgv, ...nodeOptions] });
  const served = await new Promise<T>((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  try {
    return await run(served);
  } finally {
    child.send('stop');
    await new Promise((r) => child.once('exit', r));
  }
}

/**
 * The floor rule's four cells (issue 12): at 1 and 10 connections, with calls of one org and spread over many,
 * measure the floor (the same SQL in raw pg) and each path, in turn for `--rounds` rounds, and print each path / the
 * floor: the median of each round's ratio.
 */
export async function measureCells<T>(
  script: string, pick: (served: T, spread: boolean) => { floor: Target; paths: Target[] },
): Promise<void> {
  const { seconds, rounds } = roundOptions();
  await withServer<T, void>(script, async (served) => {
    console.log(`autocannon: ${rounds} rounds of ${seconds} s per target (the floor and the paths in turn), loopback`);
    const table: string[] = [];
    for (const connections of [1, 10]) {
      for (const spread of [false, true]) {
        const { floor, paths } = pick(served, spread);
        const cell = `${connections} conn, ${spread ? `${floor.tokens?.length ?? 1} orgs` : 'one org'}`;
        const floors: number[] = [];
        const rates = paths.map((): number[] => []);
        for (let round = 0; round < rounds; round++) {
          floors.push(await measure(floor, seconds, connections, warmupFor(round)));
          for (const [i, path] of paths.entries()) rates[i].push(await measure(path, seconds, connections, warmupFor(round)));
        }
        console.log(`[${cell}] ${floor.label.padEnd(44)} ${fmt(median(floors))} req/s   rounds: ${floors.map((r) => r.toFixed(0)).join(' ')}`);
        const ratios = paths.map((path, i) => {
          const perRound = rates[i].map((r, k) => (r / floors[k]).toFixed(2));
          console.log(`[${cell}] ${path.label.padEnd(44)} ${fmt(median(rates[i]))} req/s   ${ratio(rates[i], floors).toFixed(2)} of the floor (rounds: ${perRound.join(' ')})`);
          return `${path.label} ${ratio(rates[i], floors).toFixed(2)}`;
        });
        table.push(`${cell.padEnd(20)} floor ${fmt(median(floors))} req/s   ${ratios.join('   ')}`);
      }
    }
    console.log('\nour path / the floor (median of the rounds\' ratios):');
    for (const line of table) console.log(line);
  });
}

/** The value at fraction `p` (0–1) of ascending `sorted` values. */
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];

export interface Latency { p50: number; p95: number; p99: number }

/**
 * Latency in ms of `requests` JSON POSTs to `url` at `concurrency`, after a tenth as many (at least four per
 * connection) unmeasured: the n-th call (numbered across both runs) sends `call(n)`. Any other status than `status`
 * stops the run.
 */
export async function postLatency(
  url: string, call: (n: number) => { body: object; token: string },
  options: { concurrency: number; requests: number; status?: number },
): Promise<Latency> {
  const { concurrency, requests, status = 200 } = options;
  const timings: number[] = [];
  let sent = 0;
  const run = async (count: number, record: boolean) => {
    let started = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (started < count) {
        started++;
        const { body, token } = call(sent++);
        const start = process.hrtime.bigint();
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
        const text = await res.text();
        if (res.status !== status) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 300)}`);
        if (record) timings.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }));
  };
  await run(Math.max(concurrency * 4, Math.ceil(requests / 10)), false);
  await run(requests, true);
  timings.sort((a, b) => a - b);
  return { p50: percentile(timings, 0.5), p95: percentile(timings, 0.95), p99: percentile(timings, 0.99) };
}
