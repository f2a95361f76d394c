// Request and response schemas of the submodules routes and tools (the OpenAPI document is made from them). The spec
// leaves the field names of the list routes open ("not shown"): these are the module's choice, documented in the README.
import { Type, type Static, type TSchema } from '@quad/core';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Time = Type.String({ format: 'date-time' });

export const SubmoduleParams = Type.Object({
  submodule: Type.String({ minLength: 1, maxLength: 100, description: 'submodule name, e.g. campus' }),
});

export const ParamView = Type.Object({
  name: Type.String(),
  description: Type.String(),
  required: Type.Boolean({ description: 'must be sent (no default, not optional)' }),
  default: Nullable(Type.String()),
  values: Nullable(Type.Array(Type.String(), { description: 'the accepted values, when the parameter has a list' })),
  many: Type.Boolean({ description: 'takes a comma list of accepted values ("monday,wednesday")' }),
  pattern: Nullable(Type.String({ description: 'a regular expression the whole value must match' })),
  example: Nullable(Type.String()),
  max_length: Type.Integer(),
});

export const QueryView = Type.Object({
  name: Type.String({ description: 'the query name, sent as `source`' }),
  title: Type.String(),
  description: Type.String(),
  index: Type.Boolean({ description: 'answers are added to the asking org\'s knowledge (false for the web query)' }),
  params: Type.Array(ParamView),
});

export const FeedPresetView = Type.Object({
  key: Type.String(), title: Type.String(), description: Type.String(),
  kind: Type.Union([Type.Literal('repo_jobs'), Type.Literal('hackathons')]),
  config: Type.Record(Type.String(), Type.Unknown()),
});

export const PageView = Type.Object({
  key: Type.String(), url: Type.String(), title: Type.String(), category: Type.String(), fetch_every_hours: Type.Integer(),
  crawl: Nullable(Type.Object({
    enabled: Type.Boolean(),
    last_attempt_at: Nullable(Time),
    last_success_at: Nullable(Time),
    last_error: Nullable(Type.String()),
    passages: Type.Integer(),
  }, { description: 'the deployment\'s crawl of the shared page; null before its first sync or without the knowledge module' })),
});

export const ReaderView = Type.Object({
  module: Type.String(),
  parts: Type.Array(Type.String({ description: 'pages, queries, feeds or links' })),
  loaded: Type.Boolean({ description: 'the deployment runs the module' }),
  enabled: Type.Boolean({ description: 'the module is on for this org' }),
});

export const SubmoduleView = Type.Object({
  name: Type.String(),
  title: Type.String(),
  description: Type.String(),
  modules: Type.Array(ReaderView, { description: 'the modules that read the submodule, and their parts' }),
  pages: Type.Array(PageView, { description: 'shared public pages (knowledge)' }),
  passages: Nullable(Type.Integer({ description: 'passages of the shared pages; null without the knowledge module' })),
  last_crawl_at: Nullable(Time),
  queries: Type.Array(QueryView),
  feeds: Type.Array(FeedPresetView, { description: 'feed presets (feeds)' }),
  links: Type.Object({ course_management: Nullable(Type.String()), sign_in: Nullable(Type.String()) }),
  subscribed: Type.Boolean(),
  subscribed_at: Nullable(Time),
  subscribers: Type.Integer({ description: 'orgs (with the module on) that subscribe' }),
});
export type SubmoduleViewT = Static<typeof SubmoduleView>;

export const CatalogOut = Type.Object({
  submodules: Type.Array(SubmoduleView),
  limit: Type.Object({ use: Type.Integer(), value: Nullable(Type.Integer()) }, { description: 'submodules.subscriptions: subscriptions and the most the org may have' }),
});

export const SubscribedOut = Type.Object({
  submodule: Type.String(),
  subscribed: Type.Literal(true),
  subscribed_at: Time,
  shared_pages: Nullable(Type.Object({ added: Type.Integer(), updated: Type.Integer(), disabled: Type.Integer() }, {
    description: 'what the subscribe changed in the shared pages; null without the knowledge module or pages',
  })),
});

export const UnsubscribedOut = Type.Object({ submodule: Type.String(), subscribed: Type.Literal(false) });

export const QueriesOut = Type.Object({ submodule: Type.String(), queries: Type.Array(QueryView) });

export const QueryBody = Type.Object({
  source: Type.String({ minLength: 1, maxLength: 100, description: 'the live query name (GET …/queries lists them)' }),
  params: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]), {
    maxProperties: 50, description: 'parameters by name; numbers and booleans are read as text',
  })),
}, { additionalProperties: false });

export const QueryOut = Type.Object({
  submodule: Type.String(),
  source: Type.String(),
  url: Type.String({ description: 'the page that answered; for the web query the first result\'s address ("" with none)' }),
  text: Type.String({ description: 'the answer as text, cut at SUBMODULE_QUERY_MAX_CHARS' }),
});

export const AdminOut = Type.Object({
  submodules: Type.Array(Type.Object({
    name: Type.String(),
    title: Type.String(),
    package: Type.String({ description: 'the package that declares it (SUBMODULES_PACKAGES)' }),
    subscribers: Type.Integer(),
    pages: Type.Integer({ description: 'shared pages the submodule declares' }),
    shared: Nullable(Type.Object({
      pages: Type.Integer({ description: 'shared pages the knowledge module keeps' }),
      passages: Type.Integer(),
      failing: Type.Integer(),
      last_crawl_at: Nullable(Time),
      failing_pages: Type.Array(Type.Object({ key: Type.String(), url: Type.String(), last_attempt_at: Nullable(Time), last_error: Nullable(Type.String()) })),
    }, { description: 'null without the knowledge module' })),
  })),
});
