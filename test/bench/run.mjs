// `npm run bench:<name> [-- options]`: the benchmark on a compiled tree of its own (.bench-build, made by
// test/support/compiled-tree.mjs as the suite's is), run by plain node, as production runs compiled JavaScript. Run
// from its source (`npx tsx test/bench/<name>.ts`), a benchmark measures tsx's output instead, which keeps every
// function's name with a helper call wherever a function is made: the officer routes of bench:auth ran about a
// tenth slower so.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const [name, ...args] = process.argv.slice(2);
// The machine's durable PostgreSQL, as a deployment's is: not the suite's own server, which never flushes to disk.
const env = { ...process.env, TEST_DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' };
const run = (argv) => spawnSync(process.execPath, argv, { cwd: ROOT, stdio: 'inherit', env }).status ?? 1;
const built = run([join(ROOT, 'test/support/compiled-tree.mjs'), '.bench-build']);
process.exit(built !== 0 ? built : run([join(ROOT, '.bench-build/test/bench', `${name}.js`), ...args]));
