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

async function measure(target: Target, seconds: number, connections: number): Promise<number> {
  const options: WithWarmup = {
    url: target.url, method: target.method ?? 'GET', connections, duration: seconds,
    // Each target (floors too) first runs 2 s unmeasured, so the JIT has compiled its path before the count starts.
    warmup: { connections, duration: 2 },
    headers: { ...(target.body && { 'content-type': 'application/json' }), ...target.headers },
    ...(target.body && { body: JSON.stringify(target.body) }),
    ...(target.requests ? { requests: target.requests } : target.tokens && { requests: [{ setupRequest: rotateBearer(target.tokens) }] }),
  };
  const result = await autocannon(options);
  if (result.non2xx || result.errors) throw new Error(`${target.label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
}

/** Parent side: fork `script --serve`, measure the targets it returns in order, print req/s; returns them by label. */
export async function measureTargets<T>(script: string, pick: (served: T) => Target[], after?: (served: T) => Promise<void>): Promise<Record<string, number>> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '10' } } });
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  return withServer<T, Record<string, number>>(script, async (served) => {
    console.log(`autocannon: ${connections} connections, ${seconds} s per target, loopback`);
    const rates: Record<string, number> = {};
    for (const target of pick(served)) {
      rates[target.label] = await measure(target, seconds, connections);
      console.log(`${target.label.padEnd(62)} ${rates[target.label].toFixed(0).padStart(7)} req/s`);
    }
    await after?.(served);
    return rates;
  });
}

/** Fork `script --serve` (with `args`), run `run` on what it serves, then stop it. */
export async function withServer<T, R>(script: string, run: (served: T) => Promise<R>, args: string[] = []): Promise<R> {
  const child = fork(script, ['--serve', ...args], { execArgv: ['--import', 'tsx'] });
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
 * measure the floor (the same SQL in raw pg) and each path, and print each path / the floor.
 */
export async function measureCells<T>(
  script: string, seconds: number, pick: (served: T, spread: boolean) => { floor: Target; paths: Target[] },
): Promise<void> {
  await withServer<T, void>(script, async (served) => {
    console.log(`autocannon: ${seconds} s per target, loopback`);
    const table: string[] = [];
    for (const connections of [1, 10]) {
      for (const spread of [false, true]) {
        const { floor, paths } = pick(served, spread);
        const cell = `${connections} conn, ${spread ? `${floor.tokens?.length ?? 1} orgs` : 'one org'}`;
        const base = await measure(floor, seconds, connections);
        console.log(`[${cell}] ${floor.label.padEnd(44)} ${base.toFixed(0).padStart(7)} req/s`);
        const ratios: string[] = [];
        for (const path of paths) {
          const rate = await measure(path, seconds, connections);
          console.log(`[${cell}] ${path.label.padEnd(44)} ${rate.toFixed(0).padStart(7)} req/s  ${(rate / base).toFixed(2)} of the floor`);
          ratios.push(`${path.label} ${(rate / base).toFixed(2)}`);
        }
        table.push(`${cell.padEnd(20)} floor ${base.toFixed(0).padStart(5)} req/s   ${ratios.join('   ')}`);
      }
    }
    console.log('\nour path / the floor:');
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
