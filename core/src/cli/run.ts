// `quad run [--role api|worker|all]`: serve the API and/or run jobs (startup/run.ts). Without DATABASE_URL it uses
// an embedded PostgreSQL in DATA_DIR/pg, so a newcomer needs no database setup.
import { Option, type Command } from 'commander';
import type { Role } from '../quad.js';
import { cliIo } from './io.js';
import type { Act } from './output.js';

export function defineRunCommand(program: Command, act: Act) {
  program.command('run')
    .description('serve the API and the tool server and/or run jobs, until SIGTERM or SIGINT')
    .addOption(new Option('--role <role>', 'api (HTTP only), worker (jobs only) or all').choices(['api', 'worker', 'all']).default('all'))
    .action(act(async (options: { role: Role }) => {
      // Loaded here, not at the top: `quad --help` and usage errors then answer without loading the core.
      const { runCommand } = await import('../startup/run.js');
      // The start path prints its own one-line operator errors and answers their exit code.
      return (await runCommand(options.role, cliIo().env)) ?? 'serving';
    }));
}
