// The services the core offers every module (their types are in core-services.ts): events and problems, audit,
// error log, jobs, settings, limits, secrets, and the services modules provide each other.
// Modules reach each other only through these (or through events), never through each other's internals.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import type { Settings } from './config/schema.js';
import type { AcrossOrgsWork, CoreServices, EventInput, LimitsService, ModuleRegistry, SecretsService, ServiceRef, StartOptions, VectorStatus } from './core-services.js';
import { EventPipeline } from './events/events.js';
import { clearProblem, raiseProblem } from './events/problems.js';
import { recordAudit } from './events/audit.js';
import { errorLogger, type ErrorLogInput } from './events/error-log.js';
import { startJob } from './jobs/start.js';
import { ManifestError } from './modules/registry.js';
import type { DiscordClient } from './adapters/discord/index.js';
import { getOrgConfig, setOrgConfig } from './orgs/org-config.js';
import { memberSignIn } from './auth/module-sign-in.js';
import type { AcrossOrgs } from './db/across-orgs.js';
import { orgDb } from './db/org-db.js';
import { forkFor } from './db/orm.js';

export type { CoreServices, DegradedFeature, VectorStatus } from './core-services.js';

export function createServices(deps: {
  orm: MikroORM; settings: Settings; version: string; registry: ModuleRegistry;
  extensions: Record<string, boolean>; vector: VectorStatus; moduleSettings: Map<string, Record<string, unknown>>; discord: DiscordClient;
  limits: LimitsService; secrets: SecretsService;
  /** The cross-org path (across-orgs.ts). */
  acrossOrgs: AcrossOrgs;
  /** Where event handlers log. Default: silent. */
  log?: FastifyBaseLogger;
}): CoreServices {
  const release = deps.settings.RELEASE ?? deps.version;
  const degraded = deps.registry.modules.flatMap((m) => m.databaseExtensions
    .filter((e) => !deps.extensions[e.name])
    .map((e) => ({ module: m.name, extension: e.name, without: e.without })));
  const log = deps.log ?? (pino({ level: 'silent' }) as unknown as FastifyBaseLogger);
  const events = new EventPipeline(deps.registry, log);
  const instances = new Map<string, object>();
  const service = <T>(ref: ServiceRef<T>): T => {
    const made = instances.get(ref.id);
    if (made) return made as T;
    const provided = deps.registry.services.get(ref.id);
    if (!provided) throw new Error(`No loaded module provides the service "${ref.id}" (declare it in the manifest's consumes to fail at boot instead)`);
    const { provision, module } = provided;
    const impl = (provision.impl ?? provision.factory!(services)) as Record<string, unknown>;
    const index = deps.registry.get(module)!.provides.indexOf(provision);
    const missing = provision.ref.methods.filter((m) => typeof impl?.[m] !== 'function');
    if (missing.length) {
      throw new ManifestError(module, `provides[${index}]`, `the implementation of "${ref.id}" has no method ${missing.map((m) => `"${m}"`).join(', ')}`);
    }
    instances.set(ref.id, impl);
    return impl as T;
  };
  const services: CoreServices = Object.freeze({
    settings: deps.settings,
    version: deps.version,
    release,
    degraded: Object.freeze(degraded),
    discord: deps.discord,
    limits: deps.limits,
    secrets: deps.secrets,
    members: memberSignIn,
    orgConfig: { get: getOrgConfig, set: setOrgConfig },
    registry: deps.registry,
    extensions: Object.freeze({ ...deps.extensions }),
    vector: Object.freeze({ ...deps.vector }),
    moduleSettings: <T>(module: string) => (deps.moduleSettings.get(module) ?? {}) as T,
    service,
    emit: (em: EntityManager, event: EventInput) => events.emit(em, event),
    raiseProblem,
    clearProblem,
    audit: recordAudit,
    logError: errorLogger({ orm: deps.orm, acrossOrgs: deps.acrossOrgs, release, log, emit: (em, event) => events.emit(em, event) }),
    acrossOrgs: <T>(reason: string, work: AcrossOrgsWork<T>) => deps.acrossOrgs.run(reason, work),
    orgDb: (orgId: number) => orgDb(forkFor(deps.orm, orgId)),
    startJob: (em: EntityManager, name: string, payload: Record<string, unknown>, options?: StartOptions) =>
      startJob(deps.registry, em, name, payload, options),
  });
  events.bind(services);
  // Build every provided service now: a missing method fails boot, naming the provider.
  for (const [, { provision }] of deps.registry.services) service(provision.ref);
  return services;
}
