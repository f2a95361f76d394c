// startTestApp: boot the real Quad against a fresh database in one call.
//   const quad = await startTestApp(t, { plugins: ['./examples/hello-plugin'] });
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { createLogger, LOG_SERIALIZERS } from '../log.js';
import { ConfigSource } from '../config/load.js';
import { Organization, type OrganizationEntity } from '../entities/organization.js';
import { JobRun, type JobRunEntity } from '../entities/logs.js';
import { importPlugin } from '../modules/registry.js';
import type { Module } from '../modules/types.js';
import { CORE_MODULES, pluginSpecs } from '../modules/load.js';
import { startQuad, type Quad, type Role } from '../quad.js';
import { forkFor, openOrmLazily } from '../db/orm.js';
import { issueToken } from '../auth/token-admin.js';
import type { IssuedToken, TokenRequest } from '../auth/machine-tokens.js';
import { loadOrCreateKeyPair, type KeyPair } from '../auth/keys.js';
import { createTestDatabase } from './database.js';
import { withDb } from '../db/org-db.js';


/** The bit of tap's Test this harness uses, so any runner with teardown works. */
export interface TeardownHost { teardown(fn: () => unknown): void }

export interface TestAppOptions {
  /** Plugins by package name, path (relative to the repo root) or manifest. */
  plugins?: (string | Module)[];
  /** Settings, as they would come from config files or the environment. */
  config?: Record<string, unknown>;
  /** Default `all`: the API and the job worker. */
  role?: Role;
  /** Listen on a random loopback port (for real HTTP clients). Default: false (use inject). */
  listen?: boolean;
  /** With `listen`, this port instead of a random one (a test that must know its address before start). */
  port?: number;
  /** Join an existing test database (another process of the same deployment) instead of a fresh one. */
  databaseUrl?: string;
  /** A logger to capture log lines (see captureLogs). Default: silent, or QUAD_TEST_LOG's level. */
  logger?: FastifyBaseLogger;
}

/** A logger whose lines a test can read: `const logs = captureLogs(); startTestApp(t, { logger: logs.logger })`. */
export function captureLogs(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = { write: (line: string) => { lines.push(JSON.parse(line)); } };
  const logger = pino({ level, serializers: LOG_SERIALIZERS }, stream) as unknown as FastifyBaseLogger;
  return {
    logger,
    lines,
    messages: () => lines.map((l) => String(l.msg ?? '')),
    /** Every line as raw JSON text, to assert that a secret appears nowhere. */
    text: () => lines.map((l) => JSON.stringify(l)).join('\n'),
  };
}

export interface OrgFields { prefix: string; name: string; modules: Record<string, boolean>; discordGuildId: string | null; officerRoleId: string | null }

export interface TestApp extends Quad {
  /**
   * The test's own view of the database, as its owner: every org's rows and the rows of no org, to seed fixtures and
   * check what was written. The service itself runs as its service role (DATABASE_SERVICE_ROLE, `quad_service` by
   * default), on `serviceOrm`; a test that sets the role empty gets one ORM for both.
   */
  orm: Quad['orm'];
  /** The ORM the service's own code runs on (as the service role when there is one). */
  serviceOrm: Quad['orm'];
  /** The API (throws when the role has none). */
  api: NonNullable<Quad['app']>;
  /** `http://127.0.0.1:<port>` when `listen` was set. */
  url: string;
  databaseUrl: string;
  /** Create an org directly in the database (sign-in and org routes come with their modules). */
  createOrg(fields: Partial<OrgFields> & { prefix: string }): Promise<OrganizationEntity>;
  /** Change an org directly in the database, and drop it from this process's org cache. */
  updateOrg(orgId: number, fields: Partial<OrgFields>): Promise<void>;
  /** Wait until a job run is finished (succeeded, failed or skipped) and return it. */
  waitForRun(runId: number, timeoutMs?: number): Promise<JobRunEntity>;
  /**
   * Every route the API serves (after ready()), as sorted `METHOD /path` lines without HEAD, optionally only those
   * whose path starts with `prefix`: assert the whole list, so a route file that was silently skipped fails.
   */
  routes(prefix?: string): string[];
  /** An EntityManager fork bound to an org (the org filter set), as a job or request of that org has. */
  emFor(orgId: number): ReturnType<typeof forkFor>;
  /**
   * Run a job's handler here and now, as the worker would run one attempt (no job_runs row): for the org `orgId`,
   * or with no org (a cron run) when it is null. Tests of a role without a worker use it.
   */
  runJob(name: string, payload: Record<string, unknown>, orgId: number | null): Promise<void>;
  /** A machine token of the org, made as an officer would (name and kind default to `test` and `app`). */
  issueToken(orgId: number, request: Partial<TokenRequest> & { scopes: string[] }): Promise<IssuedToken>;
}

const REPO_ROOT = new URL('../../../', import.meta.url).pathname;

let testKeyPair: KeyPair | undefined;

/**
 * The RS256 key pair a test app's own DATA_DIR starts with: one for every test process of the machine, made once in
 * the temp folder (as Quad makes its own, so processes starting at once agree). Making a pair costs about 0.2 s of
 * CPU, at every app start otherwise. A test of how Quad makes its keys gives the app its own DATA_DIR.
 */
function seedKeyPair(dataDir: string) {
  testKeyPair ??= loadOrCreateKeyPair(join(tmpdir(), 'quad-test-keys'));
  writeFileSync(join(dataDir, 'jwt_private.pem'), testKeyPair.privateKey, { mode: 0o600 });
}

export async function startTestApp(t: TeardownHost, options: TestAppOptions = {}): Promise<TestApp> {
  const modules = await Promise.all((options.plugins ?? []).map((p) => (typeof p === 'string' ? importPlugin(p, REPO_ROOT) : p)));
  // Plugins named in config load through PLUGINS (and PLUGINS_EXTRA) like in production; the template includes their
  // migrations too.
  const named = pluginSpecs({ PLUGINS: (options.config?.PLUGINS as string[] | undefined) ?? [], PLUGINS_EXTRA: (options.config?.PLUGINS_EXTRA as string[] | undefined) ?? [] });
  const configured = await Promise.all(named.map((p) => importPlugin(p)));
  const db = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => {} }
    : await createTestDatabase([...CORE_MODULES, ...configured, ...modules]);
  const emptyConfigDir = mkdtempSync(join(tmpdir(), 'quad-config-'));
  const removeConfigDir = () => rmSync(emptyConfigDir, { recursive: true, force: true });
  seedKeyPair(emptyConfigDir);
  const source = new ConfigSource({
    dir: emptyConfigDir,
    env: {},
    // Random ports (TOOL_PORT too, unless a test sets it): test files run in parallel.
    overrides: {
      NODE_ENV: 'test', DATA_DIR: emptyConfigDir, JOB_THREADS: 2, TOOL_PORT: 0,
      ...options.config, DATABASE_URL: db.url, PORT: options.port ?? 0, HOST: '127.0.0.1',
    },
  });
  const log = options.logger ?? createLogger(process.env.QUAD_TEST_LOG ?? 'silent');
  let quad: Quad;
  try {
    quad = await startQuad({ source, modules, role: options.role ?? 'all', listen: options.listen ?? false, logger: log });
  } catch (err) {
    await db.drop();
    removeConfigDir();
    throw err;
  }
  // Made on first use: many tests never look at the database themselves.
  let owner: MikroORM | undefined;
  const ownerOrm = () => (owner ??= quad.settings.DATABASE_SERVICE_ROLE
    ? openOrmLazily({ url: db.url, modules: quad.registry.modules, poolMax: 4, contextName: 'quad-test-owner' })
    : quad.orm);
  t.teardown(async () => {
    await quad.close();
    if (owner && owner !== quad.orm) await owner.close();
    await db.drop();
    removeConfigDir();
  });
  const address = quad.app?.server.address();
  return {
    ...quad,
    get orm() { return ownerOrm(); },
    serviceOrm: quad.orm,
    get api() {
      if (!quad.app) throw new Error(`role ${options.role} has no API`);
      return quad.app;
    },
    url: address && typeof address === 'object' ? `http://127.0.0.1:${address.port}` : '',
    databaseUrl: db.url,
    createOrg: (fields) => createOrg(quad.orm, fields),
    updateOrg: async (orgId, fields) => {
      await quad.orm.em.fork().nativeUpdate(Organization, { id: orgId }, fields);
      quad.orgs.invalidate(orgId);
    },
    waitForRun: (runId, timeoutMs) => waitForRun(ownerOrm(), runId, timeoutMs),
    routes: (prefix = '') => routeList(quad.app!, prefix),
    emFor: (orgId) => forkFor(quad.orm, orgId),
    async runJob(name, payload, orgId) {
      const job = quad.services.registry.jobs.get(name);
      if (!job) throw new Error(`No job "${name}" is declared`);
      const org = orgId === null ? null : await quad.orm.em.fork().findOneOrFail(Organization, { id: orgId });
      const em = orgId === null ? quad.orm.em.fork() : forkFor(quad.orm, orgId);
      await job.handler(withDb({ em, org, payload, services: quad.services, log: quad.log, attempt: 1, runKey: `test:${randomUUID()}` }) as unknown as Parameters<typeof job.handler>[0]);
    },
    issueToken: (orgId, request) => issueToken(forkFor(quad.orm, orgId), quad.services, orgId,
      { name: 'test', kind: 'app', ...request }, { kind: 'officer', actor: 'officer:test' }),
  };
}

function routeList(app: NonNullable<Quad['app']>, prefix: string): string[] {
  return app.registeredRoutes
    .filter((r) => r.url.startsWith(prefix))
    .flatMap((r) => ([] as string[]).concat(r.method).filter((m) => m !== 'HEAD').map((m) => `${m} ${r.url}`))
    .sort();
}

async function createOrg(orm: MikroORM, fields: Parameters<TestApp['createOrg']>[0]): Promise<OrganizationEntity> {
  const em = orm.em.fork();
  const org = em.create(Organization, {
    prefix: fields.prefix,
    name: fields.name ?? fields.prefix.toUpperCase(),
    discordGuildId: fields.discordGuildId ?? null,
    officerRoleId: fields.officerRoleId ?? null,
    modules: fields.modules ?? {},
  });
  await em.flush();
  return org;
}

async function waitForRun(orm: MikroORM, runId: number, timeoutMs = 15_000): Promise<JobRunEntity> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await orm.em.fork().findOneOrFail(JobRun, { id: runId }, { filters: false });
    if (run.status === 'succeeded' || run.status === 'failed' || run.status === 'skipped') return run;
    if (Date.now() > deadline) throw new Error(`job run ${runId} still ${run.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
