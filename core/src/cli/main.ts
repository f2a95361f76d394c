// One `quad` command from its arguments to its outcome (an exit code, or `serving` for `quad run`), on the given
// streams and environment: what cli.ts runs for the process, and what a caller in the same process runs instead of
// starting one (the suite's CLI tests: a `quad` process costs about 0.65 s of CPU to load the core and every plugin).
// `quad run` reads its settings from `io.env` too, but it serves until a signal and its start path writes to the
// process's console: run it as a process.
import { withCliIo, type CliIo } from './io.js';
import { exitCodeFor, type Outcome } from './output.js';
import { buildProgram } from './program.js';

export function runQuad(args: string[], io?: CliIo): Promise<Outcome> {
  const run = async (): Promise<Outcome> => {
    const { program, outcome } = buildProgram();
    try {
      await program.parseAsync(args, { from: 'user' });
      return outcome();
    } catch (err) {
      return exitCodeFor(err);
    }
  };
  return io ? withCliIo(io, run) : run();
}
