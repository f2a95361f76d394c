// The database a command works on: DATABASE_URL, or the embedded PostgreSQL in DATA_DIR/pg (the one `quad run`
// already serves, or one started for the length of the command). The commands import this file only when they
// run, so `--help` and usage errors answer without loading the core.
import { resolve } from 'node:path';
import { format } from 'node:util';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { DiscordClient } from '../adapters/discord/index.js';
import { ConfigError, ConfigSource, loadSettings } from '../config/load.js';
import type { Settings } from '../config/schema.js';
import { EmbeddedPostgresError, useEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded.js';
import { migrate } from '../db/migrator.js';
import { forkFor, openOrm } from '../db/orm.js';
import { Organization, type OrganizationEntity } from '../entities/organization.js';
import { notFound } from '../http/errors.js';
import { ManifestError, type Registry } from '../modules/registry.js';
import { loadRegistry } from '../modules/load.js';
import { SecretStore } from '../secrets/store.js';
import { operatorMessage } from '../startup/operator-errors.js';
import { cliIo } from './io.js';
import { OperatorError, tell } from './output.js';

export async function databaseUrl(env: Record<string, string | undefined>): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  const settings = loadSettings(new ConfigSource({ env }));
  if (settings.DATABASE_URL) return { url: settings.DATABASE_URL };
  const dataDir = resolve(settings.DATA_DIR, 'pg');
  tell(`DATABASE_URL is unset: starting an embedded PostgreSQL in ${dataDir} (port ${settings.EMBEDDED_PG_PORT})`);
  const embedded = await useEmbeddedPostgres({
    dataDir, port: settings.EMBEDDED_PG_PORT, pgvectorSource: settings.EMBEDDED_PGVECTOR_SOURCE, log: (msg, fields) => tell(format(msg, fields ?? '')),
  });
  if (!embedded.vector.available) tell(`embedded PostgreSQL runs without pgvector: ${embedded.vector.reason}`);
  return { url: embedded.url, embedded };
}

/**
 * The line `npm start` prints for a database that cannot be reached, does not exist or refuses the user, as an
 * OperatorError (one `error:` line, exit 1); any other error as it is.
 */
export function databaseFailure(err: unknown, databaseUrl: string): unknown {
  // Already worded for the operator, and printed as they are.
  if (err instanceof ConfigError || err instanceof ManifestError || err instanceof EmbeddedPostgresError) return err;
  const message = operatorMessage(err, { databaseUrl });
  return message ? new OperatorError(message, { cause: err }) : err;
}

/** What an admin command works with. */
export interface Admin {
  orm: MikroORM;
  registry: Registry;
  settings: Settings;
  secrets: SecretStore;
  /** Discord through the bot (BOT_TOKEN), to check servers and roles. */
  discord: DiscordClient;
  /** The org with this prefix and an EntityManager bound to it (its org filter set); 404 naming `quad org list`. */
  org(prefix: string): Promise<{ org: OrganizationEntity; em: EntityManager }>;
}

/** Migrate, then run `fn` against the database with the core and the enabled plugins; closes everything after. */
export async function withDatabase<T>(fn: (admin: Admin) => Promise<T>): Promise<T> {
  const { env } = cliIo();
  const { url, embedded } = await databaseUrl(env);
  try {
    const source = new ConfigSource({ env, overrides: { DATABASE_URL: url } });
    const { registry, settings } = await loadRegistry(source);
    await migrate(url, registry.modules);
    const orm = await openOrm({ url, modules: registry.modules, poolMax: 2 });
    try {
      return await fn({
        orm, registry, settings,
        secrets: new SecretStore(registry, settings.SECRETS_KEY),
        discord: new DiscordClient({
          apiUrl: settings.DISCORD_API_URL, authorizeUrl: settings.DISCORD_AUTHORIZE_URL, botToken: settings.BOT_TOKEN, timeoutMs: settings.DISCORD_TIMEOUT_MS,
        }),
        org: async (prefix) => {
          const org = await orm.em.fork().findOne(Organization, { prefix: prefix.toLowerCase() });
          if (!org) throw notFound(`No org "${prefix}" (quad org list shows them)`, 'unknown_org');
          return { org, em: forkFor(orm, org.id) };
        },
      });
    } finally {
      await orm.close();
    }
  } catch (err) {
    throw databaseFailure(err, url);
  } finally {
    await embedded?.stop();
  }
}
