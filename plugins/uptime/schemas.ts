// Request and response shapes of the uptime routes and tools (the spec shows no paths or fields: README "Routes").
import { ErrorBody, Id, BigId, OrgRef, Type } from '@quad/core';
import { BOUNDS, KEYWORD_MAX, NAME_MAX, URL_MAX } from './fields.js';

export const officer = { auth: 'officer' as const };
export const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export const MonitorParams = Type.Object({ org: OrgRef, id: Id }, { additionalProperties: false });
const Time = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const bounded = (key: keyof typeof BOUNDS, description: string) =>
  Type.Integer({ minimum: BOUNDS[key].minimum, maximum: BOUNDS[key].maximum, description: `${description} (${BOUNDS[key].minimum}–${BOUNDS[key].maximum}, default ${BOUNDS[key].default})` });

/** The fields a save may set; a create needs name and url, a change any one of them. */
export const monitorFields = {
  name: Type.String({ minLength: 1, maxLength: NAME_MAX, description: 'shown in lists, events and problems' }),
  url: Type.String({ minLength: 1, maxLength: URL_MAX, description: 'an http or https URL, fetched through the safe fetcher' }),
  interval_seconds: bounded('interval_seconds', 'seconds between scheduled checks'),
  expected_status: bounded('expected_status', 'the status a check must get (after redirects)'),
  timeout_ms: bounded('timeout_ms', 'the whole check\'s deadline in milliseconds'),
  keyword: Nullable(Type.String({ minLength: 1, maxLength: KEYWORD_MAX, description: 'must appear in the first 1 MB of the body (case-sensitive); null: not checked' })),
  down_after: bounded('down_after', 'consecutive failed checks before the monitor is down'),
  paused: Type.Boolean({ description: 'true: not checked on schedule (and no problem open)' }),
};
/** The fields with defaults: optional in every save. */
export const optionalFields = {
  interval_seconds: Type.Optional(monitorFields.interval_seconds),
  expected_status: Type.Optional(monitorFields.expected_status),
  timeout_ms: Type.Optional(monitorFields.timeout_ms),
  keyword: Type.Optional(monitorFields.keyword),
  down_after: Type.Optional(monitorFields.down_after),
  paused: Type.Optional(monitorFields.paused),
};

export const CreateBody = Type.Object({ name: monitorFields.name, url: monitorFields.url, ...optionalFields }, { additionalProperties: false });
export const ChangeBody = Type.Object({ name: Type.Optional(monitorFields.name), url: Type.Optional(monitorFields.url), ...optionalFields }, { additionalProperties: false, minProperties: 1 });

export const State = Type.Union(['up', 'down', 'pending', 'paused'].map((s) => Type.Literal(s)));
export const Reason = Type.Union(['status_mismatch', 'keyword_missing', 'timeout', 'refused', 'network', 'too_large', 'too_many_redirects'].map((s) => Type.Literal(s)));

export const CheckOut = Type.Object({
  id: Type.Integer(),
  at: Time,
  ok: Type.Boolean(),
  status: Nullable(Type.Integer({ description: 'the answer\'s status; null when there was no answer' })),
  latency_ms: Type.Integer(),
  reason: Nullable(Reason),
  message: Nullable(Type.String()),
});

export const MonitorOut = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  url: Type.String(),
  interval_seconds: Type.Integer(),
  expected_status: Type.Integer(),
  timeout_ms: Type.Integer(),
  keyword: Nullable(Type.String()),
  down_after: Type.Integer(),
  paused: Type.Boolean(),
  state: State,
  state_changed_at: Nullable(Time),
  consecutive_failures: Type.Integer(),
  last_check: Nullable(Type.Object({
    at: Time, ok: Type.Boolean(), status: Nullable(Type.Integer()), latency_ms: Type.Integer(), reason: Nullable(Reason), message: Nullable(Type.String()),
  })),
  next_check_at: Nullable(Time),
  uptime_24h: Nullable(Type.Number({ description: 'percent of checks up in the last 24 hours, 2 decimals; null without checks' })),
  uptime_30d: Nullable(Type.Number({ description: 'percent of checks up in the last 30 UTC days (today included); null without checks' })),
  created_at: Time,
  updated_at: Time,
});

export const DayOut = Type.Object({
  day: Type.String({ format: 'date', description: 'UTC day' }),
  checks: Type.Integer(),
  up: Type.Integer(),
  uptime_pct: Nullable(Type.Number()),
  latency_ms: Nullable(Type.Object({ min: Type.Integer(), avg: Type.Integer(), max: Type.Integer() }, { description: 'over the checks that got an answer' })),
});

export const ChecksQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'checks answered, 1–500' }),
  before: Type.Optional(BigId),
}, { additionalProperties: false });
export const DaysQuery = Type.Object({
  days: Type.Integer({ minimum: 1, maximum: 400, default: 30, description: 'UTC days up to today, 1–400' }),
}, { additionalProperties: false });
