// `quad migrate`: apply the migrations of the core and the enabled plugins, then exit (every start does it too).
import type { Command } from 'commander';
import { ConfigSource } from '../config/load.js';
import { cliIo } from './io.js';
import { print, type Act } from './output.js';

export function defineMigrateCommand(program: Command, act: Act) {
  program.command('migrate')
    .description('apply the migrations of the core and the enabled plugins, then exit')
    .action(act(migrateDatabase));
}

async function migrateDatabase(): Promise<number> {
  const [{ loadRegistry }, { migrate }, { databaseUrl, databaseFailure }] = await Promise.all([
    import('../modules/load.js'), import('../db/migrator.js'), import('./database.js'),
  ]);
  const { env } = cliIo();
  const { url, embedded } = await databaseUrl(env);
  const source = new ConfigSource({ env, overrides: { DATABASE_URL: url } });
  try {
    const { registry } = await loadRegistry(source);
    const { applied } = await migrate(url, registry.modules, print);
    print(applied.length ? `applied ${applied.length} migration(s)` : 'database is up to date');
  } catch (err) {
    throw databaseFailure(err, url);
  } finally {
    await embedded?.stop();
  }
  return 0;
}
