// Starting Quad: settings, plugins and registry, migrations, the ORM, then the API and/or the job worker.
// Everything shared between processes lives in PostgreSQL, so any number of API and worker processes can run.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createLogger } from './log.js';
import { VERSION } from './version.js';
import { ConfigError, ConfigSource } from './config/load.js';
import type { Settings } from './config/schema.js';
import { createAuth, type AuthServices } from './auth/index.js';
import { registerAuthPolicies } from './auth/policies.js';
import { installedExtensions, migrate, vectorStatus } from './db/migrator.js';
import { openOrm, rawQuery } from './db/orm.js';
import { PgListener } from './db/listener.js';
import { OrgCache } from './orgs/org-cache.js';
import { buildHttpApp } from './http/app.js';
import { AuthPolicies } from './http/auth-policies.js';
import { startWorker, type Worker } from './jobs/worker.js';
import { startDaemons, type Daemons } from './jobs/daemons.js';
import type { Registry } from './modules/registry.js';
import { loadRegistry } from './modules/load.js';
import { parsePrivateAllowance, setPrivateAllowance } from './net/private-allowance.js';
import type { Module } from './modules/types.js';
import { createServices, type CoreServices } from './services.js';
import { LimitsEngine } from './limits/engine.js';
import { ToolService } from './tools/tool-service.js';
import { buildMcpApp } from './tools/mcp-server.js';
import { SecretStore } from './secrets/store.js';
import { Metrics } from './metrics/metrics.js';
import { metricsPolicy } from './metrics/access.js';
import { warnReportMode } from './auth/would-deny.js';
import { bypassingRole, serviceUrl } from './db/service-role.js';
import { AcrossOrgs } from './db/across-orgs.js';
import { buildMetricsListener } from './metrics/listener.js';
import pg from 'pg';

export type Role = 'api' | 'worker' | 'all';

export { VERSION } from './version.js';

export interface StartOptions {
  role?: Role;
  source?: ConfigSource;
  /** Modules to load besides the PLUGINS and PLUGINS_EXTRA settings (tests, embedding apps). */
  modules?: Module[];
  /** Apply migrations before starting. Default: true. */
  migrate?: boolean;
  /** Listen on PORT, TOOL_PORT and METRICS_PORT. Default: true (tests use inject and pass false). */
  listen?: boolean;
  logger?: FastifyBaseLogger;
  /** Why the database has no pgvector, when the caller knows (the embedded database says). */
  vectorReason?: string;
}

export interface Quad {
  settings: Settings;
  registry: Registry;
  orm: MikroORM;
  services: CoreServices;
  policies: AuthPolicies;
  auth: AuthServices;
  orgs: OrgCache;
  log: FastifyBaseLogger;
  /** The API, when the role includes it. */
  app: FastifyInstance | null;
  /** The job runner, when the role includes it. */
  worker: Worker | null;
  /** The modules' daemons, run by worker processes. */
  daemons: Daemons | null;
  /** The MCP tool server on TOOL_PORT, when the role includes the API. */
  mcp: FastifyInstance | null;
  tools: ToolService;
  /** This process's Prometheus metrics (one registry per instance). */
  metrics: Metrics;
  /** The metrics-only listener on METRICS_PORT, when set. */
  metricsListener: FastifyInstance | null;
  close(): Promise<void>;
}

export async function startQuad(options: StartOptions = {}): Promise<Quad> {
  const role = options.role ?? 'all';
  const source = options.source ?? new ConfigSource();
  const { settings, registry, moduleSettings, warnings } = await loadRegistry(source, options.modules);
  // Checks SECRETS_KEY before anything touches the database.
  const secrets = new SecretStore(registry, settings.SECRETS_KEY);
  const log = options.logger ?? createLogger(settings.LOG_LEVEL);
  for (const line of warnings) log.warn(line);
  const url = settings.DATABASE_URL;
  if (!url) throw new ConfigError(['DATABASE_URL: is required here (the run command starts an embedded database when it is unset)']);

  const wanted = [...new Set(registry.modules.flatMap((m) => m.databaseExtensions.map((e) => e.name)))];
  const serviceRole = settings.DATABASE_SERVICE_ROLE || undefined;
  const extensions = options.migrate === false
    ? await installedExtensions(url, wanted)
    : (await migrate(url, registry.modules, (msg) => log.info(msg), { serviceRole })).extensions;
  // Module code's statements run as the service role, under row-level security (README "Org isolation").
  const ormUrl = serviceRole ? serviceUrl(url, serviceRole) : url;
  if (!serviceRole) await checkBypassingRole(url, settings.NODE_ENV === 'production', (line) => log.warn(line));

  const vector = await vectorStatus(url, wanted.includes('vector') ? extensions.vector : undefined, options.vectorReason);

  const orm = await openOrm({ url: ormUrl, modules: registry.modules, poolMax: settings.DATABASE_POOL_MAX });
  // One LISTEN connection per process: token revocations and org changes (org routes and job runs read the org cache).
  const listener = new PgListener(url, log);
  let app: FastifyInstance | null = null;
  let metricsListener: FastifyInstance | null = null;
  let mcp: FastifyInstance | null = null;
  let worker: Worker | null = null;
  let daemons: Daemons | null = null;
  let acrossOrgs: AcrossOrgs | null = null;
  // Per process: the safe fetcher reads it on every dial (an empty setting leaves another Quad's in this process).
  const undoPrivateAllowance = settings.ALLOWED_PRIVATE_ADDRESSES.length
    ? setPrivateAllowance(parsePrivateAllowance(settings.ALLOWED_PRIVATE_ADDRESSES).allowance)
    : () => {};
  // From here on a failed start (a provider's bad implementation, a route without a policy, a port in use) closes
  // what it opened: the ORM's pool alone would keep the process alive.
  try {
    const query = rawQuery(orm);
    const auth = createAuth(settings, listener, log, query);
    if (!settings.ACCESS_ENFORCE) await warnReportMode(auth.wouldDeny, (line) => log.warn(line));
    const orgs = new OrgCache(listener, query);
    const limitsEngine = new LimitsEngine(registry, (name) => source.raw(name));
    limitsEngine.listen(listener);
    const metrics = new Metrics();
    if (settings.METRICS_TOKEN) metrics.collectProcessMetrics();
    acrossOrgs = await AcrossOrgs.open(orm, { ownerUrl: url, log, counter: metrics });
    const services = createServices({
      orm, settings, version: VERSION, registry, extensions, vector, moduleSettings, discord: auth.discord,
      limits: limitsEngine,
      secrets, log, acrossOrgs,
    });
    for (const d of services.degraded) {
      log.warn(`degraded: module ${d.module} runs without the PostgreSQL extension "${d.extension}": ${d.without}`);
    }
    const policies = new AuthPolicies();
    registerAuthPolicies(policies, auth);
    policies.register('metrics', metricsPolicy(settings.METRICS_TOKEN));

    const tools = new ToolService(orm, services, log, metrics);
    await listener.start();
    if (role !== 'worker') {
      app = await buildHttpApp({ settings, registry, services, orm, policies, auth, orgs, tools, metrics, version: VERSION, logger: log });
      mcp = await buildMcpApp({ orgs, machineTokens: auth.machineTokens, tools, log, version: VERSION, allowedHosts: settings.TOOL_ALLOWED_HOSTS, bodyLimit: Math.floor(settings.MAX_REQUEST_MB * 1024 * 1024) });
      await app.ready();
      if (options.listen !== false) {
        await app.listen({ port: settings.PORT, host: settings.HOST });
        await mcp.listen({ port: settings.TOOL_PORT, host: settings.HOST });
      }
    }
    if (role !== 'api') {
      worker = await startWorker({ connectionString: url, orm, services, orgs, log, concurrency: settings.JOB_THREADS, sweepMs: settings.JOB_SWEEP_MS, metrics });
      daemons = await startDaemons({ url, orm, services, log, retryMs: settings.DAEMON_RETRY_MS });
    }
    if (settings.METRICS_PORT !== undefined && settings.METRICS_TOKEN) {
      metricsListener = await buildMetricsListener({ metrics, token: settings.METRICS_TOKEN, log });
      if (options.listen !== false) await metricsListener.listen({ port: settings.METRICS_PORT, host: settings.HOST });
    }

    let closing: Promise<void> | undefined;
    const close = () => (closing ??= (async () => {
      await app?.close(); // stop taking requests first
      await mcp?.close();
      await daemons?.stop();
      await worker?.stop(); // then let running jobs finish and release their locks
      await metricsListener?.close(); // scraped until the jobs are done
      await auth.wouldDeny.flush().catch((err) => log.error({ err }, 'could not count the requests report mode let through'));
      await listener.stop();
      await acrossOrgs?.close();
      await orm.close();
      undoPrivateAllowance();
    })());
    return { settings, registry, orm, services, policies, auth, orgs, log, app, mcp, tools, metrics, metricsListener, worker, daemons, close };
  } catch (err) {
    await metricsListener?.close();
    await app?.close();
    await mcp?.close();
    await daemons?.stop();
    await worker?.stop();
    await listener.stop();
    await acrossOrgs?.close();
    await orm.close();
    undoPrivateAllowance();
    throw err;
  }
}

/**
 * Without a service role, module code runs as DATABASE_URL's role: when that role passes every policy (a superuser
 * or BYPASSRLS), row-level security keeps no org's rows from another. Production refuses to start so; elsewhere it
 * is warned about. Both name the fix.
 */
async function checkBypassingRole(url: string, production: boolean, warn: (line: string) => void): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let role: string | null;
  try {
    role = await bypassingRole(client);
  } finally {
    await client.end();
  }
  if (!role) return;
  const line = `DATABASE_URL: its role "${role}" is a superuser or has BYPASSRLS and DATABASE_SERVICE_ROLE is empty, so row-level `
    + 'security would not keep orgs apart; set DATABASE_SERVICE_ROLE (e.g. quad_service) for Quad to make and use a role without either';
  if (production) throw new ConfigError([line]);
  warn(line);
}
