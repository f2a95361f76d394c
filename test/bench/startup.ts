// Startup benchmark: time from spawning `quad run` to the first 200 from /health, cold and warm, with the embedded
// PostgreSQL (DATABASE_URL unset) and with the local server; started as `npm start` starts it (compiled JavaScript,
// built first by the npm script) and as `npm run dev` does (the TypeScript source through tsx).
// Run: npm run bench:startup
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ADMIN_URL, databaseUrl } from '@quad/core/testing';

const ROOT = new URL('../../', import.meta.url).pathname;

/** How each start runs `quad run` (package.json's `start` and `dev`). */
const STARTS = {
  'npm start': ['--conditions=production', '--enable-source-maps', 'core/dist/cli.js', 'run'],
  'npm run dev': ['--import', 'tsx', 'core/src/cli.ts', 'run'],
} as const;

async function timeToHealthy(argv: readonly string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, argv, {
    cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d;
      const m = /"api":"http:\/\/[^"]+:(\d+)"[^\n]*"msg":"quad ready"/.exec(output);
      if (m) resolve(Number(m[1]));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
    if (res?.status === 200) break;
  }
  const elapsed = performance.now() - started;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return elapsed;
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'quad-bench-'));
  chmodSync(dataDir, 0o755);
  const embedded = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: '54391' };
  const name = `quad_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const external = { DATABASE_URL: databaseUrl(name) };
  try {
    for (const [start, argv] of Object.entries(STARTS)) {
      // Each start begins cold: a new embedded cluster and an empty database.
      rmSync(join(dataDir, 'pg'), { recursive: true, force: true });
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.query(`create database "${name}"`);
      const rows = [
        ['embedded, cold (new cluster, migrations)', await timeToHealthy(argv, embedded)],
        ['embedded, warm', await timeToHealthy(argv, embedded)],
        ['DATABASE_URL, cold (empty database, migrations)', await timeToHealthy(argv, external)],
        ['DATABASE_URL, warm', await timeToHealthy(argv, external)],
      ] as const;
      for (const [label, ms] of rows) console.log(`${`${start}: ${label}`.padEnd(64)} ${ms.toFixed(0).padStart(6)} ms`);
    }
  } finally {
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
