// The plugin API's types: what a module manifest declares. Versioned with @quad/core (see README "Write a plugin").
import type { EntitySchema } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { OrgDb } from '../db/org-db.js';
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { OrganizationEntity } from '../entities/organization.js';
import type { OrgSnapshot } from '../orgs/org-cache.js';
import type { CoreServices, ServiceProvision, ServiceRef } from '../core-services.js';

/**
 * Who may call a route. One core hook enforces it; a route without one refuses to boot.
 * `machine:<scope>` needs a machine token holding that scope.
 */
export type AuthPolicy =
  | 'public' | 'officer' | 'dual' | 'orgOfficer' | 'superadmin' | 'member' | 'memberOrCli' | 'machine'
  | `machine:${string}` | `officerOrMachine:${string}`
  /** The core's GET /metrics: a Prometheus server's METRICS_TOKEN, not a credential of people or orgs. */
  | 'metrics';

export interface ScopeDecl {
  /** `<module>:<verb>`, e.g. `store:read`. */
  name: string;
  description: string;
  /** The external service whose own tools this scope grants. Default: none. */
  integration?: string;
  /** Services this scope calls with the org's keys, e.g. `['embeddings']`. Default: []. */
  uses?: string[];
}

export interface LimitDecl {
  /** `<module>.<name>`, e.g. `store.products`. */
  key: string;
  kind: 'count' | 'rate';
  /** Window of a rate limit; windows start at UTC boundaries. Required for rates. */
  window?: 'minute' | 'hour' | 'day';
  /** Default value; null means no limit. */
  default: number | null;
  /** Who pays: org (default for counts), metered (default for rates) or shared. */
  paidBy?: 'org' | 'metered' | 'shared';
  description: string;
  /** Integrations whose deployment default this limit meters. Default: []. */
  integrations?: string[];
  /**
   * Count limits: how many the org has now (the limits engine checks it under a lock before each create, and
   * shows it as the use). Required for count limits. `em` is bound to the org (`orgDb(em)` is its handle).
   */
  count?: (em: EntityManager, orgId: number) => Promise<number>;
}

export interface IntegrationSecretDecl {
  /** Secret name in the org's secrets, `<integration>.<name>` or the integration key itself. */
  name: string;
  label: string;
  /** Optional secrets do not count for "connected". Default: false. */
  optional?: boolean;
  /**
   * Not a credential (a base URL, a model name): officers may read it back. Keys and tokens stay write-only.
   * Every field is encrypted at rest either way. Default: false.
   */
  readable?: boolean;
}

/** What an integration's hooks get: the org's values of its fields (set ones only) and where to act. */
export interface IntegrationContext {
  em: EntityManager;
  orgId: number;
  services: CoreServices;
  values: Readonly<Record<string, string>>;
}

/**
 * How the tool server reaches a remote integration's own MCP server (Streamable HTTP) with the org's values. `values`
 * holds the org's set fields of the integration, keyed by their secret names (`{ 'mcp.url': '…', 'mcp.token': '…' }`).
 */
export interface RemoteMcpDecl {
  /**
   * The server's URL: the org's (from `values`) or the deployment's (from `services.settings`). Every connection
   * goes through the core's safe fetcher; an org's URL must reach a public address (see `trusted`).
   */
  url(values: Readonly<Record<string, string>>, services: CoreServices): string;
  /**
   * `url` answers a deployment setting, never an org's value: it may be on a private network (as `safeFetch`'s
   * `trusted`). Never set it when an org can change the URL. Default: false.
   */
  trusted?: boolean;
  /** Headers of every request, e.g. `{ authorization: 'Bearer <token>' }`. */
  headers(values: Readonly<Record<string, string>>): Record<string, string>;
  /**
   * The repository a call names (`owner/name`), checked against a token's `limits.<integration>.repos`; null when
   * it names none (refused while the token has repos patterns). `args` holds only the arguments the remote tool's
   * listed input schema declares (see tools/repo-limit.ts). Default: `owner` + `repo`, or `repo` as `owner/name`.
   */
  repoArgument?(args: Readonly<Record<string, unknown>>): string | null;
}

/** An external service an org connects by storing its credentials as org secrets. */
export interface IntegrationDecl {
  /** e.g. `github`, `embeddings`, `pod_provider`. Needs of kind `integration` name it. */
  key: string;
  title: string;
  description: string;
  /** The secrets that connect it; connected when every required one is set. */
  secrets: IntegrationSecretDecl[];
  /** Its tools come from the service's own MCP server. Default: false. */
  remote?: boolean;
  /** With `remote`: how to reach that MCP server. */
  mcp?: RemoteMcpDecl;
  /**
   * The connection test (Explore → Integrations, Test): resolves with what worked ("embedded a test text with
   * model m"), throws with what to fix ("401 from the embeddings service: check the key"). Default: none.
   */
  test?(ctx: IntegrationContext): Promise<string>;
  /** After the org saved or cleared a field, in that write's transaction (e.g. embeddings starts knowledge.reembed). */
  onChange?(ctx: IntegrationContext): Promise<void>;
}

/** A secret a module stores for an org outside any integration (e.g. a feed's webhook address). */
export interface SecretDecl {
  /** `<module>.<name>`. */
  name: string;
  label: string;
  /** Never shown again once set (only whether it is set). Every secret is write-only over the API; this marks it in listings. */
  writeOnly?: boolean;
  /**
   * `name` is a prefix: the module keeps one secret per key of its own records, named `<name><key>` (the spec's
   * `alert_webhook_<key>` of a feed is `{ name: 'alert_webhook_', perKey: true }`). A key is 1–100 of `a-z0-9._-`.
   * Default: false.
   */
  perKey?: boolean;
}

export interface NeedDecl {
  key: string;
  label: string;
  /** `module`: another module must be on; `integration`: the org must have connected it. */
  kind: 'module' | 'integration';
  /** An optional need does not block switching the module on. Default: false. */
  optional?: boolean;
}

export interface ToolAnnotations { readOnly?: boolean; destructive?: boolean; idempotent?: boolean }

/** The machine token a tool runs for. */
export interface ToolCaller {
  /** `machine:<token id>`, for the audit log. */
  actor: string;
  tokenId: number;
  scopes: string[];
  /** The token's per-integration limits (repos and tools patterns). */
  limits: Record<string, { repos?: string[]; tools?: string[] }>;
}

export interface ToolContext {
  /** A fork bound to the token's org, inside the call's transaction. */
  em: EntityManager;
  /** The org-bound handle (README "Org isolation"), in the call's transaction with `em`. */
  readonly db: OrgDb;
  org: OrgSnapshot;
  caller: ToolCaller;
  log: FastifyBaseLogger;
  services: CoreServices;
}

export interface ToolDecl<I extends TSchema = TSchema> {
  /** `<module>.<name>`, e.g. `store.list_products`. */
  name: string;
  title?: string;
  /** Written for a model reader: what it does, when to use it, an example. */
  description: string;
  /**
   * Scope a token needs to call it. It may be a scope of a module this one optionally needs (`needs`, kind module,
   * optional): while that module is not loaded the tool is not offered.
   */
  scope: string;
  input: I;
  output?: TSchema;
  annotations?: ToolAnnotations;
  /** Destructive tools answer `confirm_required` with a preview until called with `confirm: true`. Default: false. */
  confirm?: boolean;
  /** What a confirm tool would do, shown with `confirm_required`. Default: the tool name and its input. */
  preview?: (ctx: ToolContext, input: Static<I>) => Promise<unknown>;
  handler: (ctx: ToolContext, input: Static<I>) => Promise<unknown>;
}

export interface JobContext<P = unknown> {
  /** A fork of the EntityManager for this run; bound to `org` (filter and transactions) when the job has one. */
  em: EntityManager;
  /** The org-bound handle of the run's org (README "Org isolation"); a job of no org has none (it throws). */
  readonly db: OrgDb;
  org: OrganizationEntity | null;
  payload: P;
  log: FastifyBaseLogger;
  services: CoreServices;
  /** 1 on the first attempt. */
  attempt: number;
  /**
   * The same on every attempt of this run and different for every other run: a key a job writes on a claim so that
   * its own retry (after a failure, or after its worker process died mid-run) may take the claim over, and sends as
   * an idempotency key to an outside service so that a repeated request is not done twice.
   */
  runKey: string;
}

export interface JobDecl<P extends TSchema = TSchema> {
  /** `<module>.<name>`, e.g. `limits.prune`. */
  name: string;
  description?: string;
  /** Payload schema, checked when the job is started and again before it runs. Default: an empty object. */
  payload?: P;
  /** A crontab time spec (`*\/15 * * * *`); cron runs have no org. Default: none. */
  cron?: string;
  /**
   * One run at a time: per `org`, or per key computed from the payload (per org and key when the run has an org).
   * A second start while one is queued or running is refused with 409. Default: no restriction.
   */
  once?: 'org' | ((payload: Static<P>) => string);
  /** Attempts before the run is failed for good (graphile-worker backs off e^attempt s). Default: 5. */
  maxAttempts?: number;
  handler: (ctx: JobContext<Static<P>>) => Promise<void>;
}

export interface DaemonContext {
  orm: MikroORM;
  services: CoreServices;
  log: FastifyBaseLogger;
}

/**
 * A long-running service of a module (e.g. the Discord gateway connection), run by worker processes. A singleton
 * daemon runs in exactly one process of the deployment at a time (a PostgreSQL advisory lock elects it).
 */
export interface DaemonDecl {
  /** `<module>.<name>`. */
  name: string;
  description?: string;
  /** One process at a time across the deployment. Default: true. */
  singleton?: boolean;
  /** Whether to run at all with these services (e.g. only when BOT_TOKEN is set). Default: always. */
  enabled?: (services: CoreServices) => boolean;
  /** Start it; resolve with a function that stops it. */
  start: (ctx: DaemonContext) => Promise<() => Promise<void>>;
}

/** An event as modules receive it (see CoreServices.emit). */
export interface EmittedEvent {
  id: number;
  orgId: number;
  kind: string;
  title: string;
  message: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

export interface EventHandlerDecl {
  /** Event kinds to receive, or '*' for every kind. */
  events: string[] | '*';
  /** Runs inside the transaction that emitted the event (enqueue jobs here; do no slow I/O). */
  handler: (ctx: { em: EntityManager; readonly db: OrgDb; services: CoreServices; log: FastifyBaseLogger }, event: EmittedEvent) => Promise<void>;
}

export interface DashboardContext { em: EntityManager; readonly db: OrgDb; org: OrgSnapshot; services: CoreServices }

/** A module's part of the officer dashboard; only asked while the module is on for the org. */
export interface DashboardDecl {
  /** Its section of GET /api/dashboard/<org>/overview (counts, services, sessions…). */
  overview?: (ctx: DashboardContext) => Promise<Record<string, unknown>>;
  /** Its series of GET /api/dashboard/<org>/trends: one value per UTC day from `since` (inclusive), `days` values. */
  trends?: (ctx: DashboardContext, range: { since: Date; days: number }) => Promise<{ key: string; title: string; values: number[] }[]>;
}

/** One officer page a module brings to the dashboard (shown in the sidebar while the module is on for the org). */
export interface PageDecl {
  /**
   * Where the page opens, one lower-case segment under the dashboard: `hello` opens at /dashboard/hello (and
   * /dashboard/hello/… for the page's own sub-paths). Unique across loaded modules; the shell's own paths are taken.
   */
  path: string;
  /** Its name in the sidebar and the page heading. */
  title: string;
  /** Its sidebar group. Default: the module's category. */
  category?: string;
  /** A sidebar icon of the dashboard's set (README "Pages"). Default: none (the title's first letter). */
  icon?: string;
  /** The named export of the bundle's entry that renders the page (a React component). */
  component: string;
}

/**
 * A module's dashboard pages: a prebuilt ES module bundle that imports React, @tanstack/react-query and the
 * dashboard's SDK (`@quad/web/sdk`) as bare specifiers, which the dashboard's import map resolves to its own
 * copies. The core serves the folder at /dashboard/plugins/<module>/ and lists the pages to the dashboard.
 */
export interface PagesDecl {
  /** The bundle's folder: `new URL('./web/dist/', import.meta.url)` (or a path). */
  bundle: URL | string;
  /** The entry module, a file in `bundle`. Default: `index.js`. */
  entry?: string;
  /** The pages, in sidebar order. Default: []. */
  list?: PageDecl[];
  /** The named export of the entry that renders the module's card on Overview. Default: none. */
  overviewCard?: string;
  /**
   * Tabs the module adds to Activity (after Changes), shown while it is on: `id` is the tab's `?tab=` value (lower
   * case, unique across modules, not one of the core's tabs), `component` the entry's export that renders it.
   * Default: [].
   */
  activityTabs?: ActivityTabDecl[];
  /**
   * Tabs the module adds to Explore, shown while it is on: `id` is the tab's `?tab=` value (lower case, unique across
   * modules, not `modules` or `integrations`), `component` the entry's export that renders it (without props). The
   * id `submodules` fills Explore's Submodules tab in its place (the placeholder shows while no module that is on
   * brings it); any other id is added after the core's tabs. Default: [].
   */
  exploreTabs?: ExploreTabDecl[];
  /**
   * Pages for the org's members, outside the dashboard (no officer chrome, no officer sign-in): each opens at
   * `/<module>/<org>/<path>`, where the core serves its member shell, which loads this bundle and renders the
   * component with `{ org }` (`MemberPageProps`). The page reads the API with the member's own credential (the chat
   * session cookie). Served while the module is on for the org. Default: [].
   */
  memberPages?: MemberPageDecl[];
}

export interface ActivityTabDecl { id: string; label: string; component: string }

/** One Explore tab of a module (manifest `pages.exploreTabs`). */
export interface ExploreTabDecl { id: string; label: string; component: string }

/** One member page (manifest `pages.memberPages`). */
export interface MemberPageDecl {
  /** One lower-case segment, unique in the module: `me` opens at /<module>/<org>/me. */
  path: string;
  /** The browser tab's title (with the org's name). */
  title: string;
  /** The named export of the bundle's entry that renders the page (a React component). */
  component: string;
}

export interface DatabaseExtensionDecl {
  /** PostgreSQL extension name, e.g. `vector`. */
  name: string;
  /** What users lose without it; printed at start when the database lacks the extension. */
  without: string;
}

export interface ModuleManifest {
  /** Lower-case id: key in org switches and namespace of scopes, tools, jobs and limit keys. */
  name: string;
  title: string;
  description: string;
  /** Explore category, e.g. `Engagement`. */
  category: string;
  /** Core modules are always on. Only modules shipped in @quad/core may set it (a plugin that does fails boot). Default: false. */
  core?: boolean;
  /**
   * The @quad/core versions this module works with, a semver range (e.g. `^0.1.0`), checked at boot against the
   * running core. Default: none (not checked; every published plugin should declare it).
   */
  coreVersion?: string;
  /** Switched on for new orgs. Default: false. */
  defaultEnabled?: boolean;
  needs?: NeedDecl[];
  scopes?: ScopeDecl[];
  limits?: LimitDecl[];
  /** MikroORM entity schemas (defineEntity / defineOrgEntity). Default: []. */
  entities?: EntitySchema<any, any>[];
  /**
   * Every table the module's entities and migrations make, with its tenancy (README "Org isolation"): `org` (each
   * row belongs to one org: row-level security shows and accepts only the bound org's rows), `shared` (rows of no
   * org are readable by every org; rows of an org stay that org's) or `global` (no org column; no policy). A name
   * outside the module's namespace is one the spec pins. `{ tenancy, public: '<column>' }` also lets every org read
   * the rows whose boolean column is true (an org's published pages); they stay their org's to write. Boot refuses
   * a table the module makes but does not declare, an `org` or `shared` table without an `organization_id` column,
   * and a `public` column that is not a boolean column of the table. Default: {}.
   */
  tables?: Record<string, TableDeclaration>;
  /** Folder of `NNNN_name.sql` files, applied in order after the modules this one needs. Default: none. */
  migrations?: URL | string;
  /**
   * The module's routes, mounted at the spec's paths behind the core hooks: a Fastify plugin, or a folder URL
   * (`new URL('./routes/', import.meta.url)`) whose files each default-export one, mounted with @fastify/autoload.
   * Default: none.
   */
  routes?: FastifyPluginAsyncTypebox | URL;
  tools?: ToolDecl<any>[];
  jobs?: JobDecl<any>[];
  /** Event kinds this module emits, e.g. `order.created`. Default: []. */
  events?: string[];
  /** Settings this module reads, resolved like the core's (config files, environment). Default: none. */
  settings?: TObject;
  /** External services this module lets orgs connect (through org secrets). Default: []. */
  integrations?: IntegrationDecl[];
  /** Org secrets this module keeps outside integrations. Default: []. */
  secrets?: SecretDecl[];
  /** Long-running services (worker processes). Default: []. */
  daemons?: DaemonDecl[];
  /** Handlers of emitted events (e.g. delivering them to outbound webhooks). Default: []. */
  eventHandlers?: EventHandlerDecl[];
  /** Its sections of the officer dashboard. Default: none. */
  dashboard?: DashboardDecl;
  /** Its officer pages in the dashboard, from a prebuilt bundle (README "Write a plugin", Pages). Default: none. */
  pages?: PagesDecl;
  /** PostgreSQL extensions the module works better with; missing ones are reported as degraded at start. */
  databaseExtensions?: DatabaseExtensionDecl[];
  /** Services this module offers other modules: `[provide(ref, impl)]`; ids are `<module>.<name>`. Default: []. */
  provides?: ServiceProvision<any>[];
  /** Services of other modules this one uses (`services.service(ref)`); boot fails when none provides one. Default: []. */
  consumes?: ServiceRef<any>[];
  /**
   * Names outside the module's namespace that it owns because the spec pins them: event kinds (`<module>.*`),
   * settings (`<MODULE>_*`), secrets and tools. (Tables are declared in `tables`, where a name outside `<module>_*`
   * is a claim too.) No two modules may claim or own one name. Default: none.
   */
  claims?: ClaimsDecl;
}

/** Who may see a table's rows (see ModuleManifest.tables). */
export type TableTenancy = 'org' | 'shared' | 'global';

/** A table's tenancy, or an `org` or `shared` tenancy whose rows flagged in the boolean column `public` every org reads. */
export type TableDeclaration = TableTenancy | { tenancy: Exclude<TableTenancy, 'global'>; public: string };

export interface ClaimsDecl {
  /** Org secret names (or perKey prefixes) outside `<module>.*`. */
  secrets?: string[];
  /** Tool names outside `<module>.*` that the spec pins (e.g. an older name kept as an alias). */
  tools?: string[];
  events?: string[];
  settings?: string[];
}

/** A manifest after defineModule: frozen, with defaults filled in. */
type OptionalFields = 'routes' | 'migrations' | 'settings' | 'dashboard' | 'coreVersion' | 'claims' | 'pages';
export type Module = Readonly<Required<Omit<ModuleManifest, OptionalFields>>> & Readonly<Pick<ModuleManifest, OptionalFields>>;
