// `npm test`'s last step (in .test-build/): runs tap with the arguments given, and when the run fails prints every
// failed assertion of it last, with the subtests it was in and the start of its diagnostic. CI keeps only the tail
// of a run's output, where tap's TAP stream ends with counts and the failures may be thousands of lines up. The
// failures are read from the TAP tap saved per test file (.tap/test-results).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = '.tap/test-results';
const DIAGNOSTIC_LINES = 30;
const MAX_FAILURES = 20;

function tapFiles(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tapFiles(path) : name.endsWith('.tap') ? [path] : [];
  });
}

/** The failed assertions of one file's TAP: each with its subtest path and its YAML diagnostic's first lines. */
function failuresIn(text) {
  const lines = text.split('\n');
  const found = [];
  const path = []; // the open subtests' names by depth (4 spaces a level)
  lines.forEach((line, i) => {
    const depth = Math.floor((line.length - line.trimStart().length) / 4);
    const subtest = /^\s*# Subtest: (.*)$/.exec(line);
    if (subtest) {
      path.length = depth;
      path[depth] = subtest[1];
      return;
    }
    const result = /^\s*(not )?ok \d+ - (.*?)(?: # time=[\d.]+ms)?$/.exec(line);
    if (!result) return;
    // A subtest's own closing line: its failures were its assertions, listed already.
    if (path[depth] === result[2]) {
      path.length = depth;
      return;
    }
    if (!result[1]) return;
    const diagnostic = [];
    if (lines[i + 1]?.trim() === '---') {
      for (let j = i + 1; j < lines.length && diagnostic.length < DIAGNOSTIC_LINES; j++) {
        diagnostic.push(lines[j]);
        if (lines[j].trim() === '...') break;
      }
    }
    found.push({ where: path.slice(0, depth).join(' > '), line: line.trim(), diagnostic });
  });
  return found;
}

function printFailures() {
  let shown = 0;
  let total = 0;
  for (const file of tapFiles(ROOT)) {
    const failures = failuresIn(readFileSync(file, 'utf8'));
    total += failures.length;
    for (const f of failures) {
      if (shown++ >= MAX_FAILURES) continue;
      console.log(`\n# FAILED in ${relative(ROOT, file)}${f.where ? `: ${f.where}` : ''}\n${f.line}\n${f.diagnostic.join('\n')}`);
    }
  }
  console.log(total
    ? `\n# ${total} failed assertion${total === 1 ? '' : 's'}${total > MAX_FAILURES ? ` (the first ${MAX_FAILURES} above)` : ''}`
    : '\n# no failed assertion found in the saved results (a test file that crashed or timed out says so above)');
}

const run = spawnSync('tap', process.argv.slice(2), { stdio: 'inherit' });
if (run.status !== 0) printFailures();
process.exit(run.status ?? 1);
