// Where the suite's time goes: `npm run test:profile` runs the compiled tree as `npm test` does (build it first with
// `npm test` or `npx tap build && node test/support/compiled-tree.mjs`) with one more preload in every node process,
// which writes its pid, parent, command line, wall time and CPU (its own and its reaped children's, from
// /proc/self/stat) when it exits (suite-profile-record.mjs). Then it prints the test processes (a group of files, or
// a file that runs alone: test-groups.mjs) by CPU, each with its wall time, its CPU (its children, reaped before it
// exits, are in its figure: `quad` processes, sshd, Chromium) and the node processes it started, and the test
// server's CPU over the run (its postmaster's own and its reaped backends').
// Arguments after `--` go to tap (a file list, --jobs). Linux only; timings vary with the machine's load.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { procStat } from './suite-profile-record.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const TREE = join(ROOT, '.test-build');

if (!existsSync(join(TREE, '.taprc'))) {
  console.error('no compiled tree: run `npm test` (or `npx tap build && node test/support/compiled-tree.mjs`) first');
  process.exit(2);
}
// The test server's postmaster: the process listening on its port.
const { ADMIN_URL } = await import(pathToFileURL(join(TREE, 'core/src/testing/database.js')).href);
const postgres = () => {
  const port = new URL(ADMIN_URL).port || '5432';
  const listener = spawnSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' }).stdout;
  const pid = /pid=(\d+)/.exec(listener)?.[1];
  return pid ? procStat(pid).cpu.reduce((a, b) => a + b, 0) : null;
};
const dir = mkdtempSync(join(tmpdir(), 'quad-profile-'));
const records = join(dir, 'processes.jsonl');
const recorder = new URL('./suite-profile-record.mjs', import.meta.url);
recorder.searchParams.set('out', records);
const loaderOff = pathToFileURL(join(ROOT, 'test', 'support', 'tap-loader-off.mjs')).href;
const tapArgs = process.argv.includes('--') ? process.argv.slice(process.argv.indexOf('--') + 1) : [];
const pgBefore = postgres();
const began = Date.now();
const selfBefore = procStat().cpu;
const run = spawnSync(join(ROOT, 'node_modules', '.bin', 'tap'), [`--test-env=NODE_OPTIONS=--import=${loaderOff} --import=${recorder.href}`, ...tapArgs], {
  cwd: TREE, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NO_COLOR: '1' },
});
const wall = Date.now() - began;
const selfAfter = procStat().cpu;
const pgAfter = postgres();

const procs = existsSync(records) ? readFileSync(records, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
const byPid = new Map(procs.map((p) => [p.pid, p]));
const isTest = (p) => /\.test\.js$/.test(p.argv[0] ?? '');
const files = new Map();
for (const p of procs.filter(isTest)) files.set(p.pid, { file: p.argv[0].slice(TREE.length + 1), wall: p.wall, cpu: p.cpu.reduce((a, b) => a + b, 0), own: p.cpu[0] + p.cpu[1], nodes: 0 });
for (const p of procs.filter((q) => !isTest(q))) {
  // The nearest test process above it (pids are not reused within a run of this size).
  for (let up = byPid.get(p.ppid), hops = 0; up && hops < 20; up = byPid.get(up.ppid), hops++) {
    if (files.has(up.pid)) { files.get(up.pid).nodes++; break; }
  }
}
const rows = [...files.values()].sort((a, b) => b.cpu - a.cpu);
const s = (ms) => (ms / 1000).toFixed(1);
const total = rows.reduce((a, r) => a + r.cpu, 0);
console.log(`tap exit ${run.status}, wall ${s(wall)} s; test processes ${rows.length}, their CPU ${s(total)} s (own ${s(rows.reduce((a, r) => a + r.own, 0))} s), wall summed ${s(rows.reduce((a, r) => a + r.wall, 0))} s`);
console.log(`tap runner CPU ${s(selfAfter[2] + selfAfter[3] - selfBefore[2] - selfBefore[3] - total)} s beside the test processes; PostgreSQL CPU ${pgBefore === null || pgAfter === null ? 'unknown' : s(pgAfter - pgBefore)} s`);
console.log('\n  cpu s   own s  wall s  node procs  file');
for (const r of rows.slice(0, Number(process.env.TOP ?? 40))) {
  console.log(`${s(r.cpu).padStart(7)} ${s(r.own).padStart(7)} ${s(r.wall).padStart(7)} ${String(r.nodes).padStart(11)}  ${r.file}`);
}
mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
writeFileSync(join(ROOT, 'node_modules', '.cache', 'suite-profile.json'), JSON.stringify(rows, null, 1));
process.exit(run.status ?? 1);
