// The Node.js releases Quad runs on: package.json's "engines", the release its `node` dev dependency pins (what npm
// scripts, so CI and the suite, run on) and the guard that gives an older Node.js one line instead of a stack
// (core/bin/node-version.js), as `quad`, `npm start` and `npm test` meet it.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { MINIMUM, nodeVersionProblem } from '../../core/bin/node-version.js';
import { REPO_ROOT } from '../support/repo-root.js';

const pkg = (path: string) => JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8'));
const root = pkg('package.json');

t.test('the suite runs on the pinned Node.js, which the guard and "engines" accept', async (t) => {
  t.match(root.devDependencies.node, /^\d+\.\d+\.\d+$/, 'package.json pins one release');
  t.equal(process.versions.node, root.devDependencies.node, 'this process runs on it (npm scripts put node_modules/.bin first on the PATH)');
  t.equal(root.engines.node, `>=${MINIMUM.join('.')}`, '"engines" names the guard\'s minimum');
  t.equal(pkg('plugins/pods/cli/package.json').engines.node, root.engines.node, 'the pods CLI package says the same');
  t.equal(nodeVersionProblem(process.version), null);
  const major = root.devDependencies.node.split('.')[0];
  t.match(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'), `CI and \`npm test\` run it on **Node.js ${major}**`, 'the README names the pinned major release');
  t.match(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'), `ARG NODE_VERSION=${root.devDependencies.node}\n`, 'so does the Dockerfile (test/deploy checks its stages use it)');
});

t.test('the guard: one line naming the needed and the running release, null where Quad runs', async (t) => {
  for (const ok of ['v22.12.0', '22.12.0', 'v22.20.1', 'v24.21.0', 'v26.0.0', 'v30.1.2']) t.equal(nodeVersionProblem(ok), null, ok);
  for (const [old, running] of [['v20.20.2', '20.20.2'], ['v22.11.0', '22.11.0'], ['v18.0.0', '18.0.0'], ['v8.17.0', '8.17.0']]) {
    const line = nodeVersionProblem(old!);
    t.ok(line, `${old} is refused`);
    t.notOk(line!.includes('\n'), 'one line');
    t.match(line, `Node.js 22.12 or newer`, 'names the release needed');
    t.match(line, `this is Node.js ${running}.`, 'names the one running');
    t.match(line, 'https://nodejs.org', 'says where to get it');
    t.match(line, 'npm ci', 'and how a clone gets the pinned one');
  }
  t.equal(nodeVersionProblem('not a version'), null, 'an unreadable version is let through');
});

/** `node <args>` with process.version faked to `version` before anything loads, as an older Node.js would run it. */
function runAs(version: string, args: string[]) {
  const fake = `data:text/javascript,Object.defineProperty(process,'version',{value:${JSON.stringify(version)}})`;
  // No NODE_OPTIONS: tap's would add its loaders to the child.
  return spawnSync(process.execPath, ['--import', fake, ...args], { cwd: REPO_ROOT, encoding: 'utf8', env: { PATH: process.env.PATH }, timeout: 60_000 });
}

t.test('`quad` and the npm start/test check stop at once on an older Node.js, with the one line and exit code 1', async (t) => {
  for (const entry of ['core/bin/quad.js', 'core/bin/check-node.js']) {
    const old = runAs('v20.20.2', [join(REPO_ROOT, entry), '--help']);
    t.equal(old.status, 1, `${entry}: exit code 1`);
    t.equal(old.stdout, '', `${entry}: nothing on stdout`);
    t.equal(old.stderr, `${nodeVersionProblem('v20.20.2')}\n`, `${entry}: the one line on stderr, no stack and no build output`);
  }
  const current = runAs(process.version, [join(REPO_ROOT, 'core/bin/check-node.js')]);
  t.same({ status: current.status, stderr: current.stderr }, { status: 0, stderr: '' }, 'the running release passes the check silently');
  const scripts = root.scripts as Record<string, string>;
  for (const name of ['prestart', 'pretest']) t.match(scripts[name], /^node core\/bin\/check-node\.js && /, `${name} checks first`);
  t.match(readFileSync(join(REPO_ROOT, 'core/src/cli.ts'), 'utf8'), /^(\/\/.*\n)*import '\.\.\/bin\/check-node\.js';/, 'core/dist/cli.js (npm start, the image) imports the check before anything else');
});
