#!/usr/bin/env node
// `quad` on the PATH (`npx quad …` in a clone) runs the production build, as `npm start` does; `npm run quad -- …`
// runs the TypeScript source through tsx instead. First the build is brought up to date (`scripts/build.mjs
// --if-stale`: a few milliseconds when no source changed, about a second on a fresh clone or after an edit; its
// lines go to stderr, so `$(npx quad token create …)` captures the token alone). Then core/dist/cli.js runs in a
// child node with `--conditions=production` (each workspace package's dist/ entry), a flag only a new process can
// take; this process relays the stop signals to it and exits as it does. An older Node.js than Quad supports stops
// at the first import, with one line.
import './check-node.js';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const build = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

if (existsSync(build)) {
  const built = spawnSync(process.execPath, [build, '--if-stale'], { stdio: ['ignore', 2, 2] });
  if (built.status !== 0) {
    console.error('error: the production build failed (above); fix it, or run the TypeScript source: npm run quad -- …');
    process.exit(1);
  }
}
if (!existsSync(cli)) {
  console.error('error: core/dist/cli.js is missing: run `npm run build` in the clone (or `npm run quad -- …` to run the TypeScript source)');
  process.exit(1);
}

const child = spawn(process.execPath, ['--conditions=production', '--enable-source-maps', cli, ...process.argv.slice(2)], { stdio: 'inherit' });
// On a terminal the child gets Ctrl-C itself too; Quad takes a copy relayed within a second as the same request.
const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const relay = (signal) => child.kill(signal);
for (const signal of signals) process.on(signal, relay);
child.on('exit', (code, signal) => {
  for (const s of signals) process.off(s, relay);
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
