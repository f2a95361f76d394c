// `quad run [--role api|worker|all]`: serve the API and/or run jobs. Without DATABASE_URL it uses an embedded
// PostgreSQL in DATA_DIR/pg, so a newcomer needs no database setup.
import { Option, type Command } from 'commander';
import { ConfigSource } from '../config/load.js';
import type { Role } from '../quad.js';
import type { Act } from './output.js';

export function defineRunCommand(program: Command, act: Act) {
  program.command('run')
    .description('serve the API and the tool server and/or run jobs, until SIGTERM or SIGINT')
    .addOption(new Option('--role <role>', 'api (HTTP only), worker (jobs only) or all').choices(['api', 'worker', 'all']).default('all'))
    .action(act(async (options: { role: Role }) => {
      await runQuad(options.role);
      return 'serving';
    }));
}

/** The run path: the database, start, the ready line, and a clean stop on SIGTERM/SIGINT. */
export async function runQuad(role: Role): Promise<void> {
  // Loaded here, not at the top: `quad --help` and usage errors then answer without loading the core.
  const [{ startQuad }, { databaseUrl }] = await Promise.all([import('../quad.js'), import('./database.js')]);
  const { url, embedded } = await databaseUrl(process.env);
  const source = new ConfigSource({ overrides: { DATABASE_URL: url } });
  const started = performance.now();
  const quad = await startQuad({ role, source }).catch(async (err) => {
    await embedded?.stop();
    throw err;
  });
  const address = quad.app?.server.address();
  quad.log.info(`quad ${role} ready in ${Math.round(performance.now() - started)} ms${address && typeof address === 'object' ? ` on http://${address.address}:${address.port}` : ''}`);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    quad.log.info(`${signal}: shutting down`);
    await quad.close();
    await embedded?.stop();
    process.exit(0);
  };
  // `on`, not `once`: a loader such as tsx re-raises a signal that no listener is left to handle.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
