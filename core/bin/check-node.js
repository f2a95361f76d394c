// Imported first (or run as `node core/bin/check-node.js`): on a Node.js older than Quad supports, print the one
// line node-version.js words and exit 1 before anything else loads.
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.version);
if (problem) {
  console.error(problem);
  process.exit(1);
}
