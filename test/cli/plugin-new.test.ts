// `quad plugin new <name>` writes a renamed copy of examples/hello-plugin that the typecheck and the plugin loader
// accept at once: here in a scratch clone layout (a folder whose node_modules is the repo's), where the copy's own
// tests then run as they would in plugins/ of a clone.
// tap: a process of its own (half a minute: a type check and a test run of the generated plugin).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { QUAD, ROOT, type CliResult } from './processes.js';

/** Run a node process in `cwd` to its end. */
function node(args: string[], cwd: string): Promise<CliResult> {
  const child = spawn(process.execPath, args, { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdin.end();
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const filesUnder = (dir: string): string[] => readdirSync(dir, { withFileTypes: true })
  .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));

t.test('plugin new', async (t) => {
  const clone = mkdtempSync(join(tmpdir(), 'quad-plugin-new-'));
  t.teardown(() => rmSync(clone, { recursive: true, force: true }));
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  const cli = (...args: string[]) => node([...QUAD.slice(1), ...args], clone);

  const made = await cli('plugin', 'new', 'shout_box');
  t.equal(made.code, 0, made.stderr);
  t.equal(made.stdout, 'wrote ./plugins/shout_box: module "shout_box", package quad-plugin-shout-box\n');
  t.match(made.stderr, /add "\.\/plugins\/shout_box" to PLUGINS_EXTRA/);
  t.match(made.stderr, /npm install/, 'in plugins/ it is a workspace: the lock file needs it');
  const dir = join(clone, 'plugins/shout_box');

  await t.test('every name of the example is renamed', async (t) => {
    const files = filesUnder(dir).map((f) => f.slice(dir.length + 1)).sort();
    t.same(files, [
      'README.md', 'entities.ts', 'greeter.ts', 'index.ts', 'migrations/0001_shout_box_greetings.sql', 'package.json',
      'routes/greetings.ts', 'routes/tally.ts', 'test/shout_box.test.ts', 'web/index.tsx',
    ]);
    for (const file of files) t.notMatch(readFileSync(join(dir, file), 'utf8'), /hello/i, `${file} no longer says hello`);
    t.match(readFileSync(join(dir, 'index.ts'), 'utf8'), /name: 'shout_box',\n {2}title: 'ShoutBox',/);
    t.match(readFileSync(join(dir, 'greeter.ts'), 'utf8'), /export const shoutBoxGreeter = defineService<Greeter>\(\{ id: 'shout_box.greeter'/);
    t.match(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')), { name: 'quad-plugin-shout-box', exports: { '.': { default: './index.ts' } } });
    t.match(readFileSync(join(dir, 'test/shout_box.test.ts'), 'utf8'), /PLUGINS: \['\.\/plugins\/shout_box'\], SHOUT_BOX_GREETING: 'Ahoy'/);
  });

  await t.test('the typecheck accepts it', async (t) => {
    writeFileSync(join(clone, 'tsconfig.json'), JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), include: ['plugins'], exclude: [] }));
    // The compiler `npm run typecheck` runs, by its module: its bin/tsc has no extension, which the require hook
    // tap puts in every child process takes for CommonJS.
    const checked = await node([join(ROOT, 'node_modules/typescript-native/lib/tsc.js'), '-p', 'tsconfig.json'], clone);
    t.equal(checked.code, 0, checked.stdout + checked.stderr);
  });

  await t.test('its own tests pass: the loader takes it through PLUGINS, its migration, routes, tool and job work', async (t) => {
    const tested = await node(['--import', 'tsx', 'plugins/shout_box/test/shout_box.test.ts'], clone);
    t.equal(tested.code, 0, tested.stdout + tested.stderr);
    t.match(tested.stdout, /^# \{ total: (\d+), pass: \1 \}$/m, 'every assertion passed');
  });

  await t.test('refused: an existing folder, a bad name, a core module\'s name', async (t) => {
    const again = await cli('plugin', 'new', 'shout_box');
    t.equal(again.code, 1);
    t.equal(again.stderr, `error: ${dir} already exists; choose another name or folder\n`);
    const bad = await cli('plugin', 'new', 'Shout-Box');
    t.equal(bad.code, 2);
    t.match(bad.stderr, /^error: command-argument value 'Shout-Box' is invalid for argument 'name'\. A module id is 2–32 lower-case letters, digits and _, starting with a letter\.\n/);
    const core = await cli('plugin', 'new', 'tokens');
    t.equal(core.code, 1);
    t.equal(core.stderr, 'error: "tokens" is a core module\'s id; choose another name\n');
    t.notOk(existsSync(join(clone, 'plugins/tokens')));
  });

  await t.test('--dir writes it elsewhere; outside plugins/ it is no workspace', async (t) => {
    const elsewhere = await cli('plugin', 'new', 'kudos', '--dir', 'local-plugins');
    t.equal(elsewhere.code, 0, elsewhere.stderr);
    t.equal(elsewhere.stdout, 'wrote ./local-plugins/kudos: module "kudos", package quad-plugin-kudos\n');
    t.notMatch(elsewhere.stderr, /npm install/);
    t.match(readFileSync(join(clone, 'local-plugins/kudos/index.ts'), 'utf8'), /name: 'kudos'/);
  });
});
