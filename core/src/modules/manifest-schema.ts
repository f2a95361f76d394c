// The shape every manifest must have, checked at load so a bad plugin fails boot naming itself and the field.
import { Type } from '@sinclair/typebox';

/** A module's id: also its namespace (scopes, tools, jobs, tables, settings). */
export const MODULE_ID_PATTERN = '^[a-z][a-z0-9_]{1,31}$';
const Id = Type.String({ pattern: MODULE_ID_PATTERN });
/** A dashboard page's path: one lower-case segment (`points`, `job-alerts`, a module id). */
export const PAGE_PATH_PATTERN = '^[a-z][a-z0-9_-]{0,39}$';
/** A bundle's entry: a `.js`/`.mjs` file inside the bundle folder (sub-folders allowed, no `..`). */
const PAGE_ENTRY_PATTERN = '^(?:[A-Za-z0-9_][A-Za-z0-9_.-]*/)*[A-Za-z0-9_][A-Za-z0-9_.-]*\\.m?js$';
/** A JavaScript export name. */
const EXPORT_NAME_PATTERN = '^[A-Za-z_$][A-Za-z0-9_$]*$';

const Fn = Type.Function([], Type.Any());
const DottedName = Type.String({ pattern: '^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$' });
/** A module secret: `<module>.<name>`, or (claimed) a spec-pinned name or perKey prefix such as `alert_webhook_`. */
const SECRET_NAME = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)?$';
const EventKind = Type.String({ pattern: '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$' });
const ServiceRefSchema = Type.Object({
  id: DottedName,
  methods: Type.Array(Type.String({ pattern: '^[A-Za-z_$][A-Za-z0-9_$]*$' })),
  description: Type.Optional(Type.String()),
}, { additionalProperties: false });

export const ManifestSchema = Type.Object({
  name: Id,
  title: Type.String({ minLength: 1 }),
  description: Type.String({ minLength: 1 }),
  category: Type.String({ minLength: 1 }),
  core: Type.Boolean(),
  coreVersion: Type.Optional(Type.String({ minLength: 1 })), // a semver range, checked by the registry
  defaultEnabled: Type.Boolean(),
  needs: Type.Array(Type.Object({
    key: Type.String({ minLength: 1 }),
    label: Type.String({ minLength: 1 }),
    kind: Type.Union([Type.Literal('module'), Type.Literal('integration')]),
    optional: Type.Optional(Type.Boolean()),
  }, { additionalProperties: false })),
  scopes: Type.Array(Type.Object({
    name: Type.String({ pattern: '^[a-z][a-z0-9_]*:[a-z][a-z0-9_]*$' }),
    description: Type.String({ minLength: 1 }),
    integration: Type.Optional(Type.String()),
    uses: Type.Optional(Type.Array(Type.String())),
  }, { additionalProperties: false })),
  limits: Type.Array(Type.Object({
    key: Type.String({ pattern: '^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$' }),
    kind: Type.Union([Type.Literal('count'), Type.Literal('rate')]),
    window: Type.Optional(Type.Union([Type.Literal('minute'), Type.Literal('hour'), Type.Literal('day')])),
    default: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    paidBy: Type.Optional(Type.Union([Type.Literal('org'), Type.Literal('metered'), Type.Literal('shared')])),
    description: Type.String({ minLength: 1 }),
    integrations: Type.Optional(Type.Array(Type.String())),
    count: Type.Optional(Fn),
  }, { additionalProperties: false })),
  entities: Type.Array(Type.Object({}, { additionalProperties: true })),
  tables: Type.Record(Type.String({ pattern: '^[a-z_][a-z0-9_]*$' }), Type.Union([
    Type.Literal('org'), Type.Literal('shared'), Type.Literal('global'),
    // Rows flagged in a boolean column every org reads (tenancy.ts); a global table has no policy to widen.
    Type.Object({
      tenancy: Type.Union([Type.Literal('org'), Type.Literal('shared')]),
      public: Type.String({ pattern: '^[a-z_][a-z0-9_]*$' }),
    }, { additionalProperties: false }),
  ]), {
    // patternProperties: a key that is not a table name is refused rather than passed over.
    additionalProperties: false,
  }),
  migrations: Type.Optional(Type.Any()), // a URL or a path, checked by the registry
  routes: Type.Optional(Type.Any()), // a Fastify plugin or a folder URL, checked by the registry
  tools: Type.Array(Type.Object({
    name: Type.String({ pattern: '^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$' }),
    title: Type.Optional(Type.String()),
    description: Type.String({ minLength: 1 }),
    scope: Type.String({ minLength: 1 }),
    input: Type.Object({}, { additionalProperties: true }),
    output: Type.Optional(Type.Object({}, { additionalProperties: true })),
    annotations: Type.Optional(Type.Object({
      readOnly: Type.Optional(Type.Boolean()),
      destructive: Type.Optional(Type.Boolean()),
      idempotent: Type.Optional(Type.Boolean()),
    }, { additionalProperties: false })),
    confirm: Type.Optional(Type.Boolean()),
    preview: Type.Optional(Fn),
    handler: Fn,
  }, { additionalProperties: false })),
  jobs: Type.Array(Type.Object({
    name: Type.String({ pattern: '^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$' }),
    description: Type.Optional(Type.String()),
    payload: Type.Optional(Type.Object({}, { additionalProperties: true })),
    cron: Type.Optional(Type.String({ minLength: 9 })),
    once: Type.Optional(Type.Union([Type.Literal('org'), Fn])),
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 25 })),
    handler: Fn,
  }, { additionalProperties: false })),
  events: Type.Array(EventKind),
  settings: Type.Optional(Type.Object({}, { additionalProperties: true })),
  integrations: Type.Array(Type.Object({
    key: Type.String({ pattern: '^[a-z][a-z0-9_]{1,31}$' }),
    title: Type.String({ minLength: 1 }),
    description: Type.String({ minLength: 1 }),
    secrets: Type.Array(Type.Object({
      name: Type.String({ pattern: '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)?$' }),
      label: Type.String({ minLength: 1 }),
      optional: Type.Optional(Type.Boolean()),
      readable: Type.Optional(Type.Boolean()),
    }, { additionalProperties: false }), { minItems: 1 }),
    remote: Type.Optional(Type.Boolean()),
    mcp: Type.Optional(Type.Object({ url: Fn, trusted: Type.Optional(Type.Boolean()), headers: Fn, repoArgument: Type.Optional(Fn) }, { additionalProperties: false })),
    test: Type.Optional(Fn),
    onChange: Type.Optional(Fn),
  }, { additionalProperties: false })),
  secrets: Type.Array(Type.Object({
    name: Type.String({ pattern: SECRET_NAME }),
    label: Type.String({ minLength: 1 }),
    writeOnly: Type.Optional(Type.Boolean()),
    perKey: Type.Optional(Type.Boolean()),
  }, { additionalProperties: false })),
  daemons: Type.Array(Type.Object({
    name: Type.String({ pattern: '^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$' }),
    description: Type.Optional(Type.String()),
    singleton: Type.Optional(Type.Boolean()),
    enabled: Type.Optional(Fn),
    start: Fn,
  }, { additionalProperties: false })),
  eventHandlers: Type.Array(Type.Object({
    events: Type.Union([Type.Literal('*'), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })]),
    handler: Fn,
  }, { additionalProperties: false })),
  dashboard: Type.Optional(Type.Object({
    overview: Type.Optional(Fn),
    trends: Type.Optional(Fn),
  }, { additionalProperties: false })),
  pages: Type.Optional(Type.Object({
    bundle: Type.Any(), // a folder URL or a path, checked by the registry
    entry: Type.Optional(Type.String({ pattern: PAGE_ENTRY_PATTERN })),
    list: Type.Optional(Type.Array(Type.Object({
      path: Type.String({ pattern: PAGE_PATH_PATTERN }),
      title: Type.String({ minLength: 1, maxLength: 60 }),
      category: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
      icon: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9-]{0,39}$' })),
      component: Type.String({ pattern: EXPORT_NAME_PATTERN }),
    }, { additionalProperties: false }))),
    overviewCard: Type.Optional(Type.String({ pattern: EXPORT_NAME_PATTERN })),
    activityTabs: Type.Optional(Type.Array(Type.Object({
      id: Type.String({ pattern: PAGE_PATH_PATTERN }),
      label: Type.String({ minLength: 1, maxLength: 40 }),
      component: Type.String({ pattern: EXPORT_NAME_PATTERN }),
    }, { additionalProperties: false }))),
    exploreTabs: Type.Optional(Type.Array(Type.Object({
      id: Type.String({ pattern: PAGE_PATH_PATTERN }),
      label: Type.String({ minLength: 1, maxLength: 40 }),
      component: Type.String({ pattern: EXPORT_NAME_PATTERN }),
    }, { additionalProperties: false }))),
    memberPages: Type.Optional(Type.Array(Type.Object({
      path: Type.String({ pattern: PAGE_PATH_PATTERN }),
      title: Type.String({ minLength: 1, maxLength: 60 }),
      component: Type.String({ pattern: EXPORT_NAME_PATTERN }),
    }, { additionalProperties: false }))),
  }, { additionalProperties: false })),
  databaseExtensions: Type.Array(Type.Object({
    name: Type.String({ minLength: 1 }),
    without: Type.String({ minLength: 1 }),
  }, { additionalProperties: false })),
  provides: Type.Array(Type.Object({
    ref: ServiceRefSchema,
    impl: Type.Optional(Type.Object({}, { additionalProperties: true })),
    factory: Type.Optional(Fn),
  }, { additionalProperties: false })),
  consumes: Type.Array(ServiceRefSchema),
  claims: Type.Optional(Type.Object({
    events: Type.Optional(Type.Array(EventKind)),
    settings: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }))),
    secrets: Type.Optional(Type.Array(Type.String({ pattern: SECRET_NAME }))),
    tools: Type.Optional(Type.Array(DottedName)),
  }, { additionalProperties: false })),
}, { additionalProperties: false });
