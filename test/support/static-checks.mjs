// `npm test`'s checks before the suite, run side by side (each is mostly one core's work; run one after another
// they kept the second core idle for about half a minute): the type check (TypeScript 7's native compiler), the
// ReDoS lint and `tap build` (the plugin list tap's runner loads). Each one's output is printed whole when it ends;
// the exit code is 1 when any failed.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CHECKS = [
  ['typecheck', 'npm', ['run', 'typecheck', '--silent']],
  ['lint:regexp', 'npm', ['run', 'lint:regexp', '--silent']],
  ['tap build', 'npx', ['tap', 'build']],
];

function run([name, command, args]) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (err) => output.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const text = Buffer.concat(output).toString().trimEnd();
      console.log(`[checks] ${name}: ${code === 0 ? 'ok' : `failed (exit code ${code})`} in ${seconds} s`);
      if (code !== 0 && text) console.log(text);
      resolve(code === 0);
    });
  });
}

const passed = await Promise.all(CHECKS.map(run));
process.exitCode = passed.every(Boolean) ? 0 : 1;
