// How `npm test` runs the test files: several to a process. A test process first spends about a second of CPU on
// what every file shares (starting node and tap, importing the core, MikroORM, Fastify and their 2,000 modules),
// then runs its file's tests cold (every validator compiled, nothing optimised yet). Run one after another in one
// process, the files of a folder paid that once: 12 plugin test files took 15.5 s of CPU together and 33 s apart.
//
// The compiled tree (compiled-tree.mjs) gets a group file for every up to GROUP_SIZE test files of one folder, in
// .test-build/.groups/, which imports them in turn and waits, before the next, until the tests the last one queued
// have ended: files still run one at a time, each as it does alone, only without a new process. A file whose source
// says `// tap: a process of its own` (with the reason after it) gets a group of its own: one that changes what the
// process shares for the rest of its life, or one long enough (half a minute or more) to hold a group back.
// `npx tap <file>` still runs any one file.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export const GROUP_SIZE = 6;
export const OWN_PROCESS_MARK = '// tap: a process of its own';
/**
 * Folders whose files are long (a browser, processes started and stopped): their groups start first, with the
 * files that run alone, so that the run ends on short groups rather than waiting on a long one with cores idle.
 * tap starts its files in the order of their names: the group files' names begin with 1- or 2-.
 */
const LONG = /^test\/(browser|cli|startup|faults|deploy)\//;

/** Every test file under `root` that tap's include patterns take (test/**, plugins/<name>/test/**, examples/<name>/test/**). */
function testFiles(root) {
  const found = [];
  const walk = (dir) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.')) walk(path);
      else if (e.isFile() && e.name.endsWith('.test.ts')) found.push(path);
    }
  };
  walk('test');
  for (const top of ['plugins', 'examples']) {
    for (const e of readdirSync(join(root, top), { withFileTypes: true })) {
      if (e.isDirectory()) try { walk(`${top}/${e.name}/test`); } catch { /* no tests */ }
    }
  }
  return found.sort();
}

const runsAlone = (root, file) => readFileSync(join(root, file), 'utf8').includes(OWN_PROCESS_MARK);

/** Writes the group files into `out` (the compiled tree) and returns their paths there: what tap runs. */
export function writeTestGroups(root, out) {
  const { alone = [], grouped = [] } = Object.groupBy(testFiles(root), (file) => runsAlone(root, file) ? 'alone' : 'grouped');
  const compiled = (file) => file.replace(/\.ts$/, '.js');
  // A folder of test/ with one file to group joins test/'s own.
  const perFolder = Map.groupBy(grouped, dirname);
  const folderOf = (file) => perFolder.get(dirname(file)).length === 1 && file.startsWith('test/') ? 'test' : dirname(file);
  const byFolder = Map.groupBy(grouped.map(compiled), folderOf);
  const dir = join(out, '.groups');
  mkdirSync(dir, { recursive: true });
  const names = [];
  const write = (name, members) => {
    writeFileSync(join(dir, name), groupSource(members.map((f) => relative(dir, join(out, f)))));
    names.push(`.groups/${name}`);
  };
  // A file that runs alone runs in a group of its own: the same process, first in the order.
  for (const file of alone.map(compiled)) write(`1-${file.replaceAll('/', '-')}`, [file]);
  for (const [folder, files] of byFolder) {
    const count = Math.ceil(files.length / GROUP_SIZE);
    for (let i = 0; i < count; i++) {
      // Split evenly: 7 files make groups of 4 and 3, not 6 and 1.
      const members = files.filter((_, index) => index % count === i);
      write(`${LONG.test(members[0]) ? 1 : 2}-${folder.replaceAll('/', '-')}${count > 1 ? `-${i + 1}` : ''}.test.js`, members);
    }
  }
  return names;
}

function groupSource(imports) {
  return `// Made by test/support/test-groups.mjs: these test files, one after another in one process.
import t from 'tap';
import { once } from 'node:events';

// A file's top-level teardowns run when its tests have ended, as they do when the file runs alone (its process's
// end), not at the group's: its servers and database pools close before the next file starts. (tap would also end
// the whole run once it had a top-level teardown and saw no test for three timer ticks, as between two files.)
// What the files share runs after the last one (test/support/process-end.ts).
const teardowns = [];
t.teardown = t.after = (fn) => { teardowns.push(fn); };
const processEnd = globalThis[Symbol.for('quad.test-group.end')] = [];

async function run(fns, what) {
  for (let fn; (fn = fns.pop());) {
    try {
      await fn();
    } catch (error) {
      t.fail(\`a teardown of \${what} threw\`, { error });
    }
  }
}

for (const file of ${JSON.stringify(imports, null, 2)}) {
  t.comment(file);
  await import(file);
  if (!t.idle) await once(t, 'idle');
  await run(teardowns, file);
}
await run(processEnd, 'the group');
`;
}
