// `quad org remove` deletes an org and all its data at once, so it asks first: on a terminal it wants the prefix
// typed back; when stdin is not a terminal it refuses unless --yes is given.
import { spawn } from 'node:child_process';
import t from 'tap';
import { defaultDatabase, quad, QUAD, ROOT } from './processes.js';

/** `quad <args>` on a pseudo-terminal (util-linux `script`), answering `answer` to its question. */
function onTerminal(args: string[], env: Record<string, string>, answer: string): Promise<{ code: number | null; output: string }> {
  const command = [...QUAD, ...args].join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...env },
  });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  child.stdin.end(`${answer}\n`);
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}

t.test('org remove', async (t) => {
  const db = await defaultDatabase(t);
  const env = { DATABASE_URL: db.url };
  const orgs = async () => (await quad(['org', 'list'], { env })).stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
  for (const prefix of ['acm', 'robo']) {
    t.equal((await quad(['org', 'add', '--prefix', prefix, '--name', prefix, '--guild', prefix === 'acm' ? '1001' : '1002'], { env })).code, 0);
  }

  await t.test('refused without --yes when stdin is not a terminal, naming the command that confirms', async (t) => {
    const refused = await quad(['org', 'remove', 'acm'], { env, input: 'acm\n' });
    t.equal(refused.code, 1);
    t.equal(refused.stdout, '');
    t.equal(refused.stderr, 'error: org remove deletes the org "acm" and all its data at once; stdin is not a terminal, so confirm with: quad org remove acm --yes\n');
    t.same(await orgs(), ['acm', 'robo'], 'nothing was removed');
  });

  await t.test('on a terminal it asks for the prefix; another answer keeps the org', async (t) => {
    const kept = await onTerminal(['org', 'remove', 'acm'], env, 'yes');
    t.equal(kept.code, 1);
    t.match(kept.output, /Remove the org acm \(acm\) and all its data\? Type its prefix to confirm: /);
    t.match(kept.output, /not removed/);
    t.same(await orgs(), ['acm', 'robo']);
    const removed = await onTerminal(['org', 'remove', 'acm'], env, 'acm');
    t.equal(removed.code, 0, removed.output);
    t.match(removed.output, /removed org acm and all its data/);
    t.same(await orgs(), ['robo']);
  });

  await t.test('--yes removes without asking', async (t) => {
    const removed = await quad(['org', 'remove', 'robo', '--yes'], { env });
    t.equal(removed.code, 0);
    t.equal(removed.stdout, 'removed org robo and all its data\n');
    t.same(await orgs(), []);
    const again = await quad(['org', 'remove', 'robo', '--yes'], { env });
    t.equal(again.code, 1);
    t.equal(again.stderr, 'error: No org "robo" (quad org list shows them)\n');
  });
});
