// The Node.js releases Quad runs on, and the one line an older one gets instead of a stack. Plain JavaScript with
// no imports, and nothing newer than what old releases parse, so that it can run before anything else loads: the
// `quad` command, `core/dist/cli.js` (what `npm start` and the image run) and `npm test` check it first
// (check-node.js). Keep MINIMUM equal to package.json's "engines" (test/startup/node-version.test.ts checks both).

/** The oldest supported release, as [major, minor]: "engines" says ">=22.12". */
export const MINIMUM = [22, 12];

/**
 * Why `version` (such as process.version, "v20.20.2") cannot run Quad, as one line for the terminal, or null when it
 * can. An unreadable version is let through: the check is a courtesy, not a lock.
 */
export function nodeVersionProblem(version) {
  const match = /^v?(\d+)\.(\d+)\./.exec(version);
  if (!match) return null;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  if (major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1])) return null;
  return `error: Quad needs Node.js ${MINIMUM[0]}.${MINIMUM[1]} or newer (CI tests 24), and this is Node.js ${version.replace(/^v?/, '')}. ` +
    'Install Node.js 24 (https://nodejs.org/en/download), or run `npm ci` in the clone without --ignore-scripts: ' +
    'it installs the Node.js 24 that package.json pins, and every npm script runs on it.';
}
