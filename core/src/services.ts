// The services the core offers every module: events and problems, audit, error log, jobs, settings.
// Modules reach each other only through these (or through events), never through each other's internals.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import type { Settings } from './config/schema.js';
import { EventPipeline, type EventInput } from './events/events.js';
import { clearProblem, raiseProblem, type ProblemInput, type RaisedProblem } from './events/problems.js';
import { recordAudit, type AuditInput } from './events/audit.js';
import { errorLogger, type ErrorLogInput } from './events/error-log.js';
import { startJob, type StartOptions, type StartedJob } from './jobs/start.js';
import type { Registry } from './modules/registry.js';
import type { EmittedEvent } from './modules/types.js';
import type { DiscordClient } from './adapters/discord/index.js';
import type { LimitsEngine } from './limits/engine.js';
import type { SecretStore } from './secrets/store.js';
import { getOrgConfig, setOrgConfig } from './orgs/org-config.js';

export interface DegradedFeature { module: string; extension: string; without: string }

export interface CoreServices {
  readonly settings: Settings;
  /** Version of @quad/core and the release name (RELEASE, default the version). */
  readonly version: string;
  readonly release: string;
  /** Features running without a database extension they want (e.g. pgvector on the embedded database). */
  readonly degraded: readonly DegradedFeature[];
  readonly registry: Registry;
  /** PostgreSQL extensions the database has (e.g. `{ vector: false }` on the embedded database). */
  readonly extensions: Readonly<Record<string, boolean>>;
  /** Discord through the bot credential (members, roles, messages, webhooks). */
  readonly discord: DiscordClient;
  /** Count limits (`reserve`, 409) and rate limits (`consume`, 429) declared by manifests. */
  readonly limits: LimitsEngine;
  /** The org's encrypted secrets and which integrations they connect. */
  readonly secrets: SecretStore;
  /** The org config store: one JSON value per `<area>.<name>` key (module settings, `branding`…). */
  readonly orgConfig: { get: typeof getOrgConfig; set: typeof setOrgConfig };
  /** A module's own settings, resolved from its manifest's `settings` schema. */
  moduleSettings<T = Record<string, unknown>>(module: string): T;
  /**
   * Store an event (a notification for its org, kept 30 days, newest 200) and run the event handlers of the
   * modules that are on for the org, in the caller's transaction (or a new one). The kind must be declared in a
   * loaded manifest's `events`.
   */
  emit(em: EntityManager, event: EventInput): Promise<EmittedEvent>;
  /** Raise a problem keyed by its cause (again: same row; a resolved one reopens when its message changes). */
  raiseProblem(em: EntityManager, problem: ProblemInput): Promise<RaisedProblem>;
  /** The cause of a problem was fixed: it disappears. True when there was one. */
  clearProblem(em: EntityManager, orgId: number, key: string): Promise<boolean>;
  /** Record an action in the audit log, in the caller's transaction. */
  audit(em: EntityManager, entry: AuditInput): Promise<void>;
  /**
   * Record an error in the error log (outside any transaction); an org's unhandled request error also raises its
   * problem (and the event `error.unhandled` when the problem is new). Never throws.
   */
  logError(input: ErrorLogInput): Promise<void>;
  /** Start a declared job; 400 on a bad payload, 409 while a one-at-a-time run is queued or running. */
  startJob(em: EntityManager, name: string, payload: Record<string, unknown>, options?: StartOptions): Promise<StartedJob>;
}

export function createServices(deps: {
  orm: MikroORM; settings: Settings; version: string; registry: Registry;
  extensions: Record<string, boolean>; moduleSettings: Map<string, Record<string, unknown>>; discord: DiscordClient;
  limits: LimitsEngine; secrets: SecretStore;
  /** Where event handlers log. Default: silent. */
  log?: FastifyBaseLogger;
}): CoreServices {
  const release = deps.settings.RELEASE ?? deps.version;
  const degraded = deps.registry.modules.flatMap((m) => m.databaseExtensions
    .filter((e) => !deps.extensions[e.name])
    .map((e) => ({ module: m.name, extension: e.name, without: e.without })));
  const log = deps.log ?? (pino({ level: 'silent' }) as unknown as FastifyBaseLogger);
  const events = new EventPipeline(deps.registry, log);
  const services: CoreServices = Object.freeze({
    settings: deps.settings,
    version: deps.version,
    release,
    degraded: Object.freeze(degraded),
    discord: deps.discord,
    limits: deps.limits,
    secrets: deps.secrets,
    orgConfig: { get: getOrgConfig, set: setOrgConfig },
    registry: deps.registry,
    extensions: Object.freeze({ ...deps.extensions }),
    moduleSettings: <T>(module: string) => (deps.moduleSettings.get(module) ?? {}) as T,
    emit: (em: EntityManager, event: EventInput) => events.emit(em, event),
    raiseProblem,
    clearProblem,
    audit: recordAudit,
    logError: errorLogger({ orm: deps.orm, release, log, emit: (em, event) => events.emit(em, event) }),
    startJob: (em: EntityManager, name: string, payload: Record<string, unknown>, options?: StartOptions) =>
      startJob(deps.registry, em, name, payload, options),
  });
  events.bind(services);
  return services;
}
