// Shared by the HTTP benchmarks: the servers run in a child process (so the load generator does not share their
// event loop), the parent measures each target with autocannon on loopback and prints a table.
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

export interface Target {
  label: string; url: string; method?: 'GET' | 'POST'; body?: object; headers?: Record<string, string>;
  /** autocannon's request sequence (e.g. a setupRequest that varies the token per request). */
  requests?: autocannon.Request[];
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

async function measure(target: Target, seconds: number, connections: number): Promise<number> {
  const result = await autocannon({
    url: target.url, method: target.method ?? 'GET', connections, duration: seconds,
    headers: { ...(target.body && { 'content-type': 'application/json' }), ...target.headers },
    ...(target.body && { body: JSON.stringify(target.body) }),
    ...(target.requests && { requests: target.requests }),
  });
  if (result.non2xx || result.errors) throw new Error(`${target.label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
}

/** Parent side: fork `script --serve`, measure the targets it returns in order, print req/s; returns them by label. */
export async function measureTargets<T>(script: string, pick: (served: T) => Target[], after?: (served: T) => Promise<void>): Promise<Record<string, number>> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '10' } } });
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const child = fork(script, ['--serve'], { execArgv: ['--import', 'tsx'] });
  const served = await new Promise<T>((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  try {
    console.log(`autocannon: ${connections} connections, ${seconds} s per target, loopback`);
    const rates: Record<string, number> = {};
    for (const target of pick(served)) {
      rates[target.label] = await measure(target, seconds, connections);
      console.log(`${target.label.padEnd(62)} ${rates[target.label].toFixed(0).padStart(7)} req/s`);
    }
    await after?.(served);
    return rates;
  } finally {
    child.send('stop');
    await new Promise((r) => child.once('exit', r));
  }
}
