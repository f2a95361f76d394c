// The `quad` command (`npx quad …`, `npm run quad -- …`; the commands are in cli/). Exits with the command's code:
// 0 done, 1 refused or failed, 2 a usage error; `quad run` keeps the process up until a signal.
// First, before the rest loads: an older Node.js than Quad supports gets one clear line and exit code 1; then the
// compile cache, so that what loads next is read from it.
import '../bin/check-node.js';
import '../bin/compile-cache.js';
import { runQuad } from './cli/main.js';

const result = await runQuad(process.argv.slice(2));
if (result !== 'serving') process.exit(result);
