// Load benchmark (issue 22): a realistic mix of callers, all at once for a fixed time, against one Quad process (API
// role, the default plugins of config/default.json, fakes of Discord, the identity provider and an embeddings
// service) running in a child process, so the load generator does not share its event loop. The world
// (test/bench/load-world.ts): 10 orgs with every module on, each with an officer, a machine token, 10 shoppers and
// 5 products, 3 agent members with a conversation, and 300 knowledge passages.
// The kinds (test/bench/load-mix.ts), one autocannon instance each with its own connections, every request turning
// to the next org and credential:
//   dashboard reads  officers' GETs of 8 pages in turn: overview, modules, trends, notifications, store orders,
//                    points leaderboard, agents stats, knowledge sources (3 connections)
//   tools over MCP   tools/call on the MCP server with the org's machine token, 7 tools in turn: org.info,
//                    modules.list, org.limits, calendar.events, feeds.list, uptime.monitors, knowledge.search;
//                    an answer with isError or a JSON-RPC error counts as an error (2 connections)
//   tools over API   the same calls through POST /api/tools/call (2 connections)
//   checkouts        storefront checkouts of one item by 100 shoppers (identity-provider tokens) (4 connections)
//   knowledge        POST /api/knowledge/search with a question's text, embedded through the embeddings service
//                    (hybrid search over the org's and public passages) (2 connections)
//   agent turns      a turn's context, then its commit (2 messages, a memory, a fact) for 30 members (2 connections)
// Order of the run: the bare Fastify route and the floor (a machine-token lookup and an org select in raw pg, on
// a pool of the same size) alone for --baseline seconds each at the mix's total connections (after 2 s unmeasured);
// the mix for a warm-up (a tenth of --duration, 15 to 30 s, not counted); the server's memory after a full GC; the
// mix for --duration seconds; the server's memory after a full GC again; the checkouts' exactness.
// Output: per kind its connections, requests answered, req/s, latency p50 and p99 (autocannon's, in whole ms),
// non-2xx answers and errors (connection errors and timeouts, plus refused bodies); the totals; the server's CPU
// during the run (100 % is one core: the server is one process); its RSS after GC before and after the run with the
// growth, its V8 heap used after GC (and the growth per request), and its RSS every tenth of the run; the
// checkouts' exactness. A failure lists each kind's status counts and its first refused answer.
// Checkouts: every shopper holds points for more orders than a run can place and every product more stock than it
// can sell, so each checkout must answer 201 and any other answer is an error; exactness means, after the run,
// no balance below zero, each balance equal to its ledger and to the grant minus the shopper's orders, each stock
// equal to the initial stock minus the items sold, and the orders written equal to the 201s counted (give or take
// the requests in flight when a run stopped).
// Exits 1 on any non-2xx answer or error (warm-up included), an inexact checkout, or RSS growth above
// RSS_GROWTH_MAX after GC.
// Run: npm run bench:load [-- --duration 300 --baseline 5]   (--duration 20 is a quick smoke run; setup ~20 s)
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { serveTargets, withServer } from './harness.js';
import { floors, kinds, type Kind } from './load-mix.js';
import { ORGS, SHOPPERS_PER_ORG, serveLoadWorld, type Checkouts, type ProcessStats, type Served } from './load-world.js';

/**
 * RSS may grow by this share from after the warm-up to after the run, both read a second after a full GC. A
 * process that does not leak still moves some (V8 and malloc keep pages they freed, and fragment over minutes):
 * 20-second runs here moved -2 % and +1 % (and -20 % to +30 % before the warm-up was 15 s and RSS was read at once
 * after GC). 20 % is some 50 MB of the ~260 MB server: a 5-minute run answers about 100,000 requests here, so a
 * leak of half a KB a request fails it; smaller leaks show first in the V8 heap used after GC, printed beside it.
 */
const RSS_GROWTH_MAX = 0.2;

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const ms = (x: number) => x.toFixed(0).padStart(8);

/** autocannon's `warmup` option (documented in its README; missing from @types/autocannon). */
type WithWarmup = autocannon.Options & { warmup?: { connections: number; duration: number } };

async function serverProcess(s: Served, gc: boolean): Promise<ProcessStats> {
  return (await fetch(`${s.control}/process${gc ? '?gc=1' : ''}`)).json() as Promise<ProcessStats>;
}

/** Every kind at once, each with its own connections, for `seconds`. */
function runMix(mix: Kind[], seconds: number): Promise<autocannon.Result[]> {
  return Promise.all(mix.map((k) => autocannon({ ...k.options, connections: k.connections, duration: seconds })));
}

const failed = (r: autocannon.Result) => r.non2xx + r.errors + r.mismatches;

function row(label: string, connections: number, r: autocannon.Result) {
  return `${label.padEnd(50)}${String(connections).padStart(6)}${String(r.requests.total).padStart(10)}${r.requests.average.toFixed(0).padStart(8)}` +
    `${ms(r.latency.p50)}${ms(r.latency.p99)}${String(r.non2xx).padStart(9)}${String(r.errors + r.mismatches).padStart(8)}`;
}
const HEADER = `${'kind'.padEnd(50)}${'conns'.padStart(6)}${'requests'.padStart(10)}${'req/s'.padStart(8)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'non-2xx'.padStart(9)}${'errors'.padStart(8)}`;

/** Status counts and the first refused answer of a kind that failed. */
function failureLines(k: Kind, r: autocannon.Result): string[] {
  if (!failed(r)) return [];
  const statuses = Object.entries(r.statusCodeStats ?? {}).map(([code, { count }]) => `${code} × ${count}`).join(', ');
  return [`  ${k.label}: statuses ${statuses}; ${r.timeouts} timeouts, ${r.mismatches} refused bodies; first: ${k.firstFailure() ?? '(none recorded)'}`];
}

/** The bare route and the floor, each alone at the mix's connections (after 2 s unmeasured); their problems. */
async function measureFloors(s: Served, connections: number, seconds: number): Promise<string[]> {
  const problems: string[] = [];
  for (const floor of floors(s, connections)) {
    const options: WithWarmup = { ...floor.options, duration: seconds, warmup: { connections, duration: 2 } };
    const r = await autocannon(options);
    console.log(row(floor.label, connections, r));
    problems.push(...failureLines(floor, r));
  }
  return problems;
}

/** The mix's table and totals; its problems. */
function reportMix(mix: Kind[], results: autocannon.Result[]): string[] {
  const problems: string[] = [];
  mix.forEach((k, i) => {
    console.log(row(k.label, k.connections, results[i]));
    problems.push(...failureLines(k, results[i]));
  });
  const sum = (f: (r: autocannon.Result) => number) => results.reduce((n, r) => n + f(r), 0);
  console.log(`${'total'.padEnd(50)}${String(sum((r) => r.connections)).padStart(6)}${String(sum((r) => r.requests.total)).padStart(10)}` +
    `${sum((r) => r.requests.average).toFixed(0).padStart(8)}${''.padStart(16)}${String(sum((r) => r.non2xx)).padStart(9)}${String(sum((r) => r.errors + r.mismatches)).padStart(8)}`);
  return problems;
}

/**
 * The server's CPU during the run (how close to a saturated core it ran), RSS and heap after GC before and after it,
 * and the RSS seen during it; the problem when RSS grew too much.
 */
function reportProcess(before: ProcessStats, after: ProcessStats, seconds: number, during: number[], answered: number): string[] {
  const growth = after.rss / before.rss - 1;
  // `after` includes its own forced GC: a fraction of a second of CPU over the run's.
  console.log(`server CPU during the run: ${((after.cpuMicros - before.cpuMicros) / 1e6 / seconds * 100).toFixed(0)} % of one core`);
  console.log(`server RSS after GC: ${mb(before.rss)} after the warm-up, ${mb(after.rss)} after the run: ${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} % ` +
    `(at most +${RSS_GROWTH_MAX * 100} %)${before.gc ? '' : ' (no global.gc: not collected)'}`);
  console.log(`server V8 heap used after GC: ${mb(before.heapUsed)} -> ${mb(after.heapUsed)} ` +
    `(${((after.heapUsed - before.heapUsed) / answered).toFixed(0)} bytes per request answered)`);
  console.log(`server RSS during the run (every tenth): ${during.map(mb).join(', ')}`);
  return growth > RSS_GROWTH_MAX ? [`RSS grew ${(growth * 100).toFixed(1)} %, more than ${RSS_GROWTH_MAX * 100} %`] : [];
}

/** The checkouts' exactness, against the 201s of the warm-up and the run; the problem when inexact. */
async function reportCheckouts(s: Served, connections: number, placed: number): Promise<string[]> {
  const c = await (await fetch(`${s.control}/checkouts`)).json() as Checkouts;
  const written = c.orders - ORGS * SHOPPERS_PER_ORG;
  const inFlight = 2 * connections;
  console.log(`checkouts: ${written} orders written for ${placed} answered 201 (up to ${inFlight} more may have been in flight when a run stopped); ` +
    `negative balances ${c.negative}, balances off their ledger ${c.ledger_off}, off the grant minus orders ${c.spend_off}, stocks off ${c.stock_off}`);
  const exact = !c.negative && !c.ledger_off && !c.spend_off && !c.stock_off && written >= placed && written <= placed + inFlight;
  return exact ? [] : ['checkouts are not exact'];
}

async function measure(s: Served, duration: number, baseline: number): Promise<boolean> {
  const mix = kinds(s);
  const connections = mix.reduce((n, k) => n + k.connections, 0);
  const warmup = Math.min(30, Math.max(15, Math.round(duration / 10)));
  console.log(`setup ${s.setupSeconds.toFixed(0)} s: ${ORGS} orgs, ${ORGS * SHOPPERS_PER_ORG} shoppers; autocannon on loopback, ${connections} connections in all`);
  console.log(HEADER);
  const problems = await measureFloors(s, connections, baseline);

  const warm = await runMix(mix, warmup);
  mix.forEach((k, i) => problems.push(...failureLines({ ...k, label: `${k.label} (warm-up)` }, warm[i])));
  const before = await serverProcess(s, true);
  const during: number[] = [];
  const sampler = setInterval(() => { serverProcess(s, false).then((p) => during.push(p.rss), () => {}); }, (duration * 1000) / 10);
  const results = await runMix(mix, duration);
  clearInterval(sampler);
  const after = await serverProcess(s, true);

  console.log(`-- the mix, all kinds at once for ${duration} s (after ${warmup} s of warm-up) --`);
  problems.push(...reportMix(mix, results));
  problems.push(...reportProcess(before, after, duration, during, results.reduce((n, r) => n + r.requests.total, 0)));
  const checkouts = mix.findIndex((k) => k.label.startsWith('checkouts'));
  problems.push(...await reportCheckouts(s, mix[checkouts].connections, warm[checkouts]['2xx'] + results[checkouts]['2xx']));

  if (problems.length) {
    console.log('FAILED:');
    for (const p of problems) console.log(p);
  }
  return problems.length === 0;
}

if (process.argv.includes('--serve')) {
  await serveTargets(serveLoadWorld);
} else {
  const { values } = parseArgs({ options: { duration: { type: 'string', default: '300' }, baseline: { type: 'string', default: '5' } } });
  const ok = await withServer<Served, boolean>(new URL(import.meta.url).pathname,
    (served) => measure(served, Number(values.duration), Number(values.baseline)), [], ['--expose-gc']);
  process.exitCode = ok ? 0 : 1;
}
