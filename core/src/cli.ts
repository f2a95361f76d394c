// The `quad` command (`npx quad …`, `npm run quad -- …`; the commands are in cli/). Exits with the command's code:
// 0 done, 1 refused or failed, 2 a usage error; `quad run` keeps the process up until a signal.
// First, before the rest loads: an older Node.js than Quad supports gets one clear line and exit code 1; then the
// compile cache, so that what loads next is read from it.
import '../bin/check-node.js';
import '../bin/compile-cache.js';
import { buildProgram } from './cli/program.js';
import { exitCodeFor } from './cli/output.js';

const { program, outcome } = buildProgram();
program.parseAsync(process.argv.slice(2), { from: 'user' }).then(
  () => {
    const result = outcome();
    if (result !== 'serving') process.exit(result);
  },
  (err) => process.exit(exitCodeFor(err)),
);
