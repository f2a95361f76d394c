// The services the core offers every module, as TYPES ONLY: what `services` (in job, tool, event and dashboard
// contexts) and `app.quad` (in routes) hold. This file has no runtime code and imports only types, so the
// plugin API's types (modules/types.ts) never depend on the implementations (services.ts, events, limits, secrets,
// jobs), which themselves depend on the registry and the manifest types. test/plugin-api/type-cycles.test.ts
// keeps it that way.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Settings } from './config/schema.js';
import type { DiscordClient } from './adapters/discord/index.js';
import type { AuditInput } from './events/audit.js';
import type { RawQuery } from './db/raw-query.js';
import type { OrgDb, SqlHandle } from './db/org-db.js';
import type {
  EmittedEvent, IntegrationDecl, JobDecl, LimitDecl, Module, ScopeDecl, ToolDecl,
} from './modules/types.js';

// ---------------------------------------------------------------------------------------------------------------
// Services between modules (see README "Services between modules").

/**
 * A typed reference to a service one module provides to others, made with `defineService<T>({ id, methods })`.
 * Refs are compared by `id`, so the providing module and a module that uses the service can each declare their
 * own ref (with the interface they expect) without importing each other.
 */
export interface ServiceRef<T> {
  /** `<provider module>.<name>`, e.g. `points.ledger`. */
  readonly id: string;
  /**
   * The methods this side relies on. The provider's list is checked against its implementation at boot; a
   * consumer's list must be a subset of the provider's (boot error naming the consumer otherwise).
   */
  readonly methods: readonly string[];
  readonly description?: string;
  /** Carries `T` for type inference only; never set. */
  readonly __type?: (value: T) => T;
}

/** What a module offers: a ref and its implementation (an object of methods), or a factory that builds it once. */
export interface ServiceProvision<T = unknown> {
  ref: ServiceRef<T>;
  impl?: T;
  /** Called once at boot with the core's services (to read settings, other services…). */
  factory?: (services: CoreServices) => T;
}

// ---------------------------------------------------------------------------------------------------------------
// The registry as modules see it.

/** A secret a loaded module declared (integration or module secret). */
export interface DeclaredSecret {
  name: string; label: string; writeOnly: boolean; module: string; integration: string | null; optional: boolean;
  /** `name` is a prefix of one secret per key (`<name><key>`). */
  perKey: boolean;
}

export interface ModuleRegistry {
  /** Loaded modules, core first, then each after the modules (and services) it needs. */
  readonly modules: readonly Module[];
  readonly scopes: ReadonlyMap<string, ScopeDecl & { module: string }>;
  readonly limits: ReadonlyMap<string, LimitDecl & { module: string }>;
  readonly tools: ReadonlyMap<string, ToolDecl & { module: string }>;
  readonly jobs: ReadonlyMap<string, JobDecl & { module: string }>;
  readonly integrations: ReadonlyMap<string, IntegrationDecl & { module: string }>;
  readonly secrets: ReadonlyMap<string, DeclaredSecret>;
  /** Services between modules, by id, with the module that provides each. */
  readonly services: ReadonlyMap<string, { provision: ServiceProvision; module: string }>;
  get(name: string): Module | undefined;
  /** Is `module` on for an org? Core modules always are; an unknown module never is. */
  isEnabled(orgModules: Record<string, boolean>, module: string): boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// Events, problems and jobs: what modules pass in and get back.

export interface EventInput {
  orgId: number;
  /** Event kind, declared in the emitting module's manifest `events`, e.g. `order.created`, `job.failed`. */
  kind: string;
  /** One line; cut at 256 characters. */
  title: string;
  /** Cut at 4,096 characters. Default: empty. */
  message?: string;
  /** Details for handlers and the dashboard (JSON). Never put a secret here: events reach outbound webhooks. */
  data?: Record<string, unknown>;
}

export interface ProblemInput {
  orgId: number;
  /** The cause, unique in the org: `<module>.<cause>:<id>`, e.g. `feeds.run_failed:12`. */
  key: string;
  /** Kind shown in the list and used by filters. Default: the key up to its first `:`. */
  kind?: string;
  title: string;
  message?: string;
  data?: Record<string, unknown>;
}

export interface RaisedProblem {
  id: number;
  status: 'open' | 'resolved';
  /** How often it was raised, this time included. */
  occurrences: number;
  /** The first raise made the row. */
  created: boolean;
  /** A resolved problem was opened again because its message changed. */
  reopened: boolean;
}

export interface StartOptions {
  orgId?: number | null;
  /** Run no earlier than this. Default: now. */
  runAt?: Date;
}

export interface StartedJob { runId: number; name: string; scopeKey: string | null }

// ---------------------------------------------------------------------------------------------------------------
// Limits.

export type LimitKind = LimitDecl['kind'];
export type LimitWindow = NonNullable<LimitDecl['window']>;
export type PaidBy = NonNullable<LimitDecl['paidBy']>;
export type LimitSource = 'override' | 'setting' | 'default';
export interface LimitValue { value: number | null; source: LimitSource }
/** An override as stored or requested: a whole number, or null (no limit). */
export type OverrideValue = number | null;
export interface RateUse { use: number; value: number | null; window: LimitWindow; window_start: Date; resets_at: Date }
export interface CountUse { use: number | null; value: number | null }
/** A rate use checked before a call and counted as the call's transaction's last statement (checkRate, commitRate). */
export interface PendingRateUse { orgId: number; key: string; amount: number; value: number | null; window: LimitWindow; window_start: Date; resets_at: Date }

export interface LimitReportEntry {
  key: string;
  module: string;
  kind: LimitKind;
  window: LimitWindow | null;
  /** The value in force; null: no limit. */
  value: number | null;
  source: LimitSource;
  /** The manifest default. */
  default: number | null;
  /** Counts: how many the org has. Rates: use in the current window. */
  use: number;
  paid_by: PaidBy;
  integrations: string[];
  description: string;
  /** Rates: when the current window ends (ISO); counts: null. */
  resets_at: string | null;
  /** use ≥ 80 % of a set value. */
  near_limit: boolean;
}

/** Count limits (`reserve`, 409) and rate limits (`consume`, 429) declared by manifests (see README "Limits"). */
export interface LimitsService {
  value(em: EntityManager, orgId: number, key: string): Promise<LimitValue>;
  consume(em: EntityManager, orgId: number, key: string, amount?: number): Promise<RateUse>;
  reserve(em: EntityManager, orgId: number, key: string, amount?: number): Promise<CountUse>;
  /** Does `amount` more fit in the current window (the use last seen, or read without a lock)? 429 when not; counts nothing. */
  checkRate(em: EntityManager, orgId: number, key: string, amount?: number): Promise<PendingRateUse>;
  /**
   * Count a checked use as the transaction's last statement (`query` runs a prepared statement there): the row lock
   * lasts only through the commit; 429 when it no longer fits.
   */
  commitRate(query: RawQuery, pending: PendingRateUse): Promise<RateUse>;
  usage(em: EntityManager, orgId: number, key: string): Promise<number>;
  report(em: EntityManager, org: { id: number; modules: Readonly<Record<string, boolean>> }): Promise<LimitReportEntry[]>;
  overrides(em: EntityManager, orgId: number, key?: string): Promise<Map<string, OverrideValue>>;
  setOverrides(em: EntityManager, orgId: number, changes: Record<string, OverrideValue | 'default'>, actor: string):
    Promise<{ key: string; from: OverrideValue | 'default'; to: OverrideValue | 'default' }[]>;
  settingProblems(): string[];
  /** Throw a ConfigError naming every bad LIMIT_<KEY> setting. */
  checkSettings(): void;
}

// ---------------------------------------------------------------------------------------------------------------
// Secrets.

/** A declared secret and whether the org has set it. Never the value. */
export interface SecretStatus {
  name: string;
  label: string;
  module: string;
  integration: string | null;
  /** Integration secrets: false when it counts for "connected". Module secrets are always optional. */
  optional: boolean;
  writeOnly: boolean;
  set: boolean;
  updatedAt: Date | null;
  updatedBy: string | null;
}

export interface IntegrationStatus {
  key: string;
  title: string;
  description: string;
  module: string;
  remote: boolean;
  /** Every required secret is set. */
  connected: boolean;
  secrets: { name: string; label: string; optional: boolean; set: boolean }[];
}

export interface RotateResult {
  /** Rows re-encrypted with the first key. */
  rotated: number;
  /** Rows already on the first key. */
  current: number;
}

/** The org's encrypted secrets and which integrations they connect (see README "Org secrets and integrations"). */
export interface SecretsService {
  /** Are keys configured (can secrets be set and read)? */
  readonly configured: boolean;
  /** Id of the key new values are encrypted with, or null without SECRETS_KEY. */
  readonly currentKeyId: string | null;
  /** 400 `unknown_secret` unless a loaded module declares the name. */
  declared(name: string): DeclaredSecret;
  get(em: EntityManager, orgId: number, name: string): Promise<string | null>;
  /** The decrypted values of those of `names` that are set, in one read. */
  values(em: EntityManager, orgId: number, names: readonly string[]): Promise<Map<string, string>>;
  set(em: EntityManager, orgId: number, name: string, value: string, by?: string | null): Promise<{ updatedAt: Date }>;
  delete(em: EntityManager, orgId: number, name: string): Promise<boolean>;
  names(em: EntityManager, orgId: number): Promise<Set<string>>;
  list(em: EntityManager, orgId: number): Promise<SecretStatus[]>;
  connected(em: EntityManager, orgId: number, integration: string): Promise<boolean>;
  connectedIntegrations(em: EntityManager, orgId: number): Promise<Set<string>>;
  integrations(em: EntityManager, orgId: number): Promise<IntegrationStatus[]>;
  /** Re-encrypt every org's secrets that are not on the first key: cross-org work (`services.acrossOrgs`). */
  rotate(all: AcrossOrgsDb, options?: { batch?: number }): Promise<RotateResult>;
  /**
   * Encrypt a module's own value (a sensitive memory, say) with the newest SECRETS_KEY, bound to `context` — start it
   * with the module's name and name the owner, e.g. `agents.memory:<org>:<member>` — so it opens only under the same
   * context: a value copied to another row or org does not. 503 `secrets_unconfigured` without SECRETS_KEY.
   * `rotate` does not re-encrypt sealed values: keep an old key listed while values sealed with it are kept.
   */
  seal(context: string, plaintext: string): string;
  /** Decrypt a sealed value; throws SecretDecryptError when its key is no longer listed or it was changed or moved. */
  open(context: string, sealed: string): string;
}

/**
 * Member sign-in with Discord for a module's own flow, e.g. the pods CLI: the module serves the start route and its
 * callback (whose URL must be a redirect of the Discord app), the core keeps the OAuth state in the session cookie.
 */
export interface MemberSignInService {
  /** Redirect to Discord's authorize page; `context` (e.g. the org) comes back from complete(). 503 not_configured without CLIENT_ID. */
  begin(request: FastifyRequest, reply: FastifyReply, options: { redirectUri: string; context: string; scope?: string }): FastifyReply;
  /**
   * At the callback: checks the state (the access decision oauth_state_mismatch), exchanges the code (400
   * invalid_oauth_code; 503 when Discord does not answer) and remembers the user.
   */
  complete(request: FastifyRequest, reply: FastifyReply, options: { redirectUri: string; code?: string; state?: string }): Promise<{ user: { id: string; username: string; name: string }; context: string }>;
  /** A CLI token (kind cli, scope podhost:connect, 90 days) for a member; revokes their previous one in the org. Shown once. */
  issueCliToken(em: EntityManager, orgId: number, member: { chatUserId: string; name: string }): Promise<{ token: string; prefix: string; expiresAt: Date }>;
}

// ---------------------------------------------------------------------------------------------------------------
// CoreServices.

/**
 * The cross-org path's handle (services.acrossOrgs): `sql`, `one`, `run` and `query` as on the org-bound handle,
 * and `em`, whose finds see every org's rows, all in the call's one transaction as the database's owner.
 */
export interface AcrossOrgsDb extends SqlHandle {
  /**
   * The org-bound handle of one org a sweep found: the ordinary path (the service role, row-level security), not
   * the cross-org transaction, so it may be used after the cross-org work returned.
   */
  forOrg(orgId: number): OrgDb;
}

export type AcrossOrgsWork<T> = (db: AcrossOrgsDb) => Promise<T>;

export interface DegradedFeature { module: string; extension: string; without: string }

/** pgvector on the database: installed (or offered by the server when no module wants it), else the reason. */
export interface VectorStatus { available: boolean; reason: string | null }

export interface CoreServices {
  readonly settings: Settings;
  /** Version of @quad/core and the release name (RELEASE, default the version). */
  readonly version: string;
  readonly release: string;
  /** Features running without a database extension they want (e.g. pgvector on the embedded database). */
  readonly degraded: readonly DegradedFeature[];
  readonly registry: ModuleRegistry;
  /** PostgreSQL extensions the database has (e.g. `{ vector: false }` on the embedded database). */
  readonly extensions: Readonly<Record<string, boolean>>;
  /** Whether the database can do vector search (pgvector), and why not; shown on /health. */
  readonly vector: Readonly<VectorStatus>;
  /** Discord through the bot credential (members, roles, messages, webhooks). */
  readonly discord: DiscordClient;
  /** Count limits (`reserve`, 409) and rate limits (`consume`, 429) declared by manifests. */
  readonly limits: LimitsService;
  /** The org's encrypted secrets and which integrations they connect. */
  readonly secrets: SecretsService;
  /** Member sign-in with Discord for a module's own flow, and CLI tokens. */
  readonly members: MemberSignInService;
  /** The org config store: one JSON value per `<area>.<name>` key (module settings, `branding`…). */
  readonly orgConfig: {
    get<T = unknown>(em: EntityManager, orgId: number, key: string): Promise<T | undefined>;
    set(em: EntityManager, orgId: number, key: string, value: unknown): Promise<void>;
  };
  /** A module's own settings, resolved from its manifest's `settings` schema. */
  moduleSettings<T = Record<string, unknown>>(module: string): T;
  /**
   * The implementation of a service another module `provides` (declare the ref in your manifest's `consumes`, so
   * boot fails when no loaded module provides it). A plain Error when nothing provides it.
   */
  service<T>(ref: ServiceRef<T>): T;
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
  /** Record an action in the audit log, in the caller's transaction (in routes prefer `request.audit`). */
  audit(em: EntityManager, entry: AuditInput): Promise<void>;
  /**
   * Record an error in the error log (outside any transaction); an org's unhandled request error also raises its
   * problem (and the event `error.unhandled` when the problem is new). Never throws.
   */
  logError(input: ErrorLogInput): Promise<void>;
  /**
   * The one path for work across orgs (README "Org isolation"): `work` in one transaction as the database's owner,
   * which row-level security lets see every org's rows. Only for superadmin work, sweeps and schedulers that iterate
   * orgs, rows of no org and reads of `shared` tables; per-org work goes back onto a fork bound to its org. `reason`
   * (`<module>.<what>`) is logged at debug level and counted in `quad_across_orgs_total`.
   */
  acrossOrgs<T>(reason: string, work: AcrossOrgsWork<T>): Promise<T>;
  /**
   * The org-bound handle of `orgId` (the ordinary path: row-level security keeps it in that org), for work that
   * learns its org from something other than its route or job: a daemon's event from an org's Discord server, a
   * signed state that names the org.
   */
  orgDb(orgId: number): OrgDb;
  /** Start a declared job; 400 on a bad payload, 409 while a one-at-a-time run is queued or running. */
  startJob(em: EntityManager, name: string, payload: Record<string, unknown>, options?: StartOptions): Promise<StartedJob>;
}

/** One error for the error log (see CoreServices.logError). */
export interface ErrorLogInput {
  orgId?: number | null;
  /** `event`: an event handler that failed (the event itself was kept). */
  source: 'request' | 'job' | 'event';
  /** `GET /api/x/:y`, `tool <name>`, the job name, or `<module> handler of <event kind>`. */
  origin: string;
  requestId?: string | null;
  error: unknown;
  /** The logger line written for this error. */
  logLine: string;
}
