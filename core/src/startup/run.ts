// `quad run`: check every setting, start the embedded database when DATABASE_URL is unset, start Quad, say where it
// answers, and stop it all in order on a signal. A start that fails on something the operator can fix prints one
// line saying what to do (operator-errors.ts) and exits 1; anything else is logged with its stack.
import { resolve } from 'node:path';
import { ConfigSource } from '../config/load.js';
import type { Settings } from '../config/schema.js';
import { useEmbeddedPostgres } from '../db/embedded.js';
import { createLogger, logFormat } from '../log.js';
import { loadRegistry } from '../modules/load.js';
import { startQuad, type Role } from '../quad.js';
import { logReady } from './banner.js';
import { operatorMessage } from './operator-errors.js';
import { handleShutdown } from './shutdown.js';

/** Resolves to an exit code when the start failed; to undefined while Quad runs (a signal ends it). */
export async function runCommand(role: Role, env: NodeJS.ProcessEnv = process.env): Promise<number | undefined> {
  const started = performance.now();
  let settings: Settings;
  try {
    // Every setting, the plugins' and the typos' included, before anything starts.
    ({ settings } = await loadRegistry(new ConfigSource({ env })));
  } catch (err) {
    console.error(operatorMessage(err) ?? err);
    return 1;
  }
  const log = createLogger(settings.LOG_LEVEL, undefined, logFormat(settings.LOG_FORMAT, settings.NODE_ENV));
  const shutdown = handleShutdown(log);
  let url = settings.DATABASE_URL;
  let vectorReason: string | undefined;
  try {
    if (!url) {
      const dataDir = resolve(settings.DATA_DIR, 'pg');
      log.info({ dataDir, port: settings.EMBEDDED_PG_PORT }, 'DATABASE_URL is unset: starting an embedded PostgreSQL');
      const embedded = await useEmbeddedPostgres({
        dataDir, port: settings.EMBEDDED_PG_PORT, pgvectorSource: settings.EMBEDDED_PGVECTOR_SOURCE, log: (msg, fields) => log.info(fields ?? {}, msg),
      });
      shutdown.add('embedded PostgreSQL', () => embedded.stop());
      url = embedded.url;
      // Said once: vector search is on, or why it is off.
      if (embedded.vector.available) log.info({ version: embedded.vector.version, from: embedded.vector.from }, 'embedded PostgreSQL: pgvector is available');
      else {
        vectorReason = `embedded PostgreSQL: ${embedded.vector.reason}`;
        log.warn(`embedded PostgreSQL runs without pgvector: vector search is off, knowledge search uses text only. Why: ${embedded.vector.reason}`);
      }
    }
    const quad = await startQuad({ role, source: new ConfigSource({ env, overrides: { DATABASE_URL: url } }), logger: log, vectorReason });
    shutdown.add('quad', () => quad.close());
    await logReady(quad, role, performance.now() - started);
    return undefined;
  } catch (err) {
    await shutdown.closeAll();
    const message = operatorMessage(err, { databaseUrl: url, ports: { PORT: settings.PORT, TOOL_PORT: settings.TOOL_PORT, ...(settings.METRICS_PORT !== undefined && { METRICS_PORT: settings.METRICS_PORT }) } });
    if (message) console.error(message);
    else log.fatal({ err }, 'quad failed to start');
    return 1;
  }
}
