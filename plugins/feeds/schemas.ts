// Request and response shapes of the feed routes and tools (the spec leaves field names of list, history and
// presets to us: README "Routes").
import { ErrorBody, OrgRef, Type } from '@quad/core';
import { EVERY_HOURS, FEED_KINDS, KEY_PATTERN } from './feed-config.js';

export const officer = { auth: 'officer' as const };
export const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export const FeedKey = Type.String({ pattern: KEY_PATTERN, description: 'lowercase letters, digits and dashes, 40 characters or fewer' });
export const FeedParams = Type.Object({ org: OrgRef, key: FeedKey });
const Kind = Type.Union(FEED_KINDS.map((k) => Type.Literal(k)), { description: 'repo_jobs or hackathons; fixed at creation' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Time = Type.String({ format: 'date-time' });

export const SaveBody = Type.Object({
  kind: Type.Optional(Kind),
  webhook_url: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'a Discord webhook URL; required for a new feed; write-only' })),
  every_hours: Type.Optional(Type.Integer({ minimum: EVERY_HOURS.minimum, maximum: EVERY_HOURS.maximum, description: `hours between runs (default ${EVERY_HOURS.default})` })),
  enabled: Type.Optional(Type.Boolean({ description: 'false pauses the schedule (Run now still works)' })),
  config: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'the kind\'s fields (README "Config"); left out on an update: kept' })),
}, { additionalProperties: false });

const Run = Type.Object({
  at: Time, duration_ms: Type.Integer(), found: Type.Integer(), new: Type.Integer(), posted: Type.Integer(),
  error: Nullable(Type.String()), note: Nullable(Type.String()), trigger: Type.String(),
});

export const FeedOut = Type.Object({
  key: Type.String(),
  kind: Kind,
  every_hours: Type.Integer(),
  enabled: Type.Boolean(),
  config: Type.Object({}, { additionalProperties: true }),
  webhook_set: Type.Boolean({ description: 'the webhook URL is stored (it is never shown)' }),
  schedule: Type.Object({ every_hours: Type.Integer(), next_run_at: Nullable(Time) }),
  first_run_done: Type.Boolean({ description: 'false until the first run recorded the listing' }),
  last_run: Type.Union([Run, Type.Null()]),
  last_error: Nullable(Type.String()),
  posts: Type.Integer({ description: 'items posted since the feed was made' }),
  created_at: Time,
  updated_at: Time,
});

export const HistoryOut = Type.Object({
  key: Type.String(),
  runs: Type.Array(Type.Object({ id: Type.Integer(), ...Run.properties }), { description: 'the last 50 runs, newest first' }),
  items: Type.Array(Type.Object({
    key: Type.String(), status: Type.Union([Type.Literal('recorded'), Type.Literal('new'), Type.Literal('posted')]),
    title: Type.String(), url: Type.String(), seen_at: Time, posted_at: Nullable(Time),
  }), { description: 'the last 50 items posted or recorded, newest first' }),
});

export const PresetOut = Type.Object({
  module: Type.String({ description: 'the submodule that offers it' }),
  key: Type.String(), title: Type.String(), description: Type.String(), kind: Kind,
  config: Type.Object({}, { additionalProperties: true, description: 'send as config to PUT /feeds/<key>' }),
  added: Type.Boolean({ description: 'the org has a feed of this key' }),
});

export const RunBody = Type.Object({
  post_existing: Type.Optional(Type.Boolean({ description: 'on a first run: post the current items instead of only recording them' })),
}, { additionalProperties: false });
