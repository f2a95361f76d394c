// The `quad` command: `run [--role api|worker|all]` and `migrate`. Without DATABASE_URL both use an
// embedded PostgreSQL in DATA_DIR/pg so a newcomer needs no database setup.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, ConfigSource, loadSettings } from './config/load.js';
import { useEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { migrate } from './db/migrator.js';
import { loadRegistry, type Role } from './quad.js';
import { runCommand } from './startup/run.js';
import { openOrm } from './db/orm.js';
import { ORG_USAGE, orgCommand } from './cli-org.js';

const USAGE = `usage: quad <command> [options]
  run [--role api|worker|all]   serve the API and/or run jobs (default all)
  migrate                       apply the migrations of the core and the enabled plugins
${ORG_USAGE}`;

async function databaseUrl(env: Record<string, string | undefined>): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  const settings = loadSettings(new ConfigSource({ env }));
  if (settings.DATABASE_URL) return { url: settings.DATABASE_URL };
  const dataDir = resolve(settings.DATA_DIR, 'pg');
  console.error(`DATABASE_URL is unset: starting an embedded PostgreSQL in ${dataDir} (port ${settings.EMBEDDED_PG_PORT}; no pgvector)`);
  const embedded = await useEmbeddedPostgres({ dataDir, port: settings.EMBEDDED_PG_PORT, log: (msg, fields) => console.error(msg, fields ?? '') });
  return { url: embedded.url, embedded };
}

async function main(argv: string[]) {
  const [command] = argv;
  if (command === 'org') return withDatabase(argv.slice(1));
  const { values } = parseArgs({ args: argv, allowPositionals: true, options: { role: { type: 'string', default: 'all' } } });
  if (command !== 'run' && command !== 'migrate') {
    console.error(USAGE);
    return 2;
  }
  const role = values.role as Role;
  if (!['api', 'worker', 'all'].includes(role)) {
    console.error(`--role must be api, worker or all (got ${role})\n${USAGE}`);
    return 2;
  }
  if (command === 'run') return runCommand(role);
  const { url, embedded } = await databaseUrl(process.env);
  const source = new ConfigSource({ overrides: { DATABASE_URL: url } });
  try {
    const { registry } = await loadRegistry(source);
    const { applied } = await migrate(url, registry.modules, (msg) => console.log(msg));
    console.log(applied.length ? `applied ${applied.length} migration(s)` : 'database is up to date');
  } finally {
    await embedded?.stop();
  }
  return 0;
}

/** `org …`: migrate, then run the command against the database (embedded when DATABASE_URL is unset). */
async function withDatabase(args: string[]): Promise<number> {
  const { url, embedded } = await databaseUrl(process.env);
  try {
    const source = new ConfigSource({ overrides: { DATABASE_URL: url } });
    const { registry, settings } = await loadRegistry(source);
    await migrate(url, registry.modules);
    const orm = await openOrm({ url, modules: registry.modules, poolMax: 2 });
    try {
      return await orgCommand(args, { orm, registry, settings, print: (line) => console.log(line) });
    } finally {
      await orm.close();
    }
  } finally {
    await embedded?.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => { if (code !== undefined) process.exit(code); },
  (err) => {
    console.error(err instanceof ConfigError || err?.name === 'ManifestError' ? err.message : err);
    process.exit(1);
  },
);
