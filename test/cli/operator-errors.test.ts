// Every database command of the CLI, when the database cannot be reached or does not exist, prints the line
// `npm start` prints for it (startup/operator-errors.ts) as one `error:` line, without a stack, and exits 1.
import t from 'tap';
import { ADMIN_URL } from '@quad/core/testing';
import { freePort, spawnQuad } from '../startup/support.js';
import { quad } from './processes.js';

// The database commands share one way in (cli/database.ts, and migrate's own); each process loads the whole core, so
// a few of them per case.
const ORG_AND_TOKEN = [
  ['org', 'add', '--prefix', 'acm', '--name', 'ACM', '--guild', '111111111111111111'],
  ['org', 'modules', 'acm', 'points=on'],
  ['token', 'create', '--org', 'acm', '--name', 'agent', '--kind', 'agent', '--scopes', 'org:read'],
  ['token', 'revoke', '--org', 'acm', '1'],
];
const LISTS = [['org', 'list'], ['token', 'list', '--org', 'acm']];

const missingDatabase = new URL(ADMIN_URL);
missingDatabase.pathname = '/quad_no_such_database';

for (const [what, url, commands] of [
  ['a refused connection', async () => `postgres://quad:secret-password@127.0.0.1:${await freePort()}/quad`, [['migrate'], ...ORG_AND_TOKEN]],
  ['a database that does not exist', async () => missingDatabase.href, [['migrate'], ...LISTS]],
] as const) {
  t.test(what, async (t) => {
    const env = { DATABASE_URL: await url() };
    // What `npm start` (quad run) prints for this database.
    const start = spawnQuad(t, { env });
    t.equal((await start.exited).code, 1);
    const line = start.lines().filter((l) => !l.startsWith('{'));
    t.equal(line.length, 1, 'quad run prints one line', { output: start.output() });

    const results = await Promise.all(commands.map((args) => quad([...args], { env })));
    commands.forEach((args, i) => {
      const { code, stdout, stderr } = results[i]!;
      t.equal(code, 1, `quad ${args.join(' ')} exits 1`);
      t.equal(stderr, `error: ${line[0]}\n`, `quad ${args.join(' ')}: the same line, no stack`);
      t.equal(stdout, '');
      t.notMatch(stderr, /secret-password/);
    });
  });
}
