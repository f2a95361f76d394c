// Request and response shapes of the calendar routes and tools (the spec leaves the calendar's paths and fields to
// us: README "Routes").
import { ErrorBody, Id, OrgRef, Type } from '@quad/core';
import { INSTANT_PATTERN } from './time.js';
import { TOKEN_PATTERN } from './feed.js';

export const officer = { auth: 'officer' as const };
export const Errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

export const EventParams = Type.Object({ org: OrgRef, id: Id });
export const FeedFileParams = Type.Object({
  file: Type.String({ pattern: TOKEN_PATTERN.replace('$', '\\.ics$'), maxLength: 60, description: '<token>.ics' }),
});

const Instant = (what: string) => Type.String({
  pattern: INSTANT_PATTERN, maxLength: 40,
  description: `${what}: ISO 8601 with an offset (2026-12-01T18:00:00-05:00); all-day events may give a date (2026-12-01)`,
});
const Time = Type.String({ format: 'date-time' });

const fields = {
  title: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ maxLength: 5000 }),
  location: Type.String({ maxLength: 500 }),
  start_at: Instant('the first (or only) occurrence\'s start'),
  end_at: Instant('its end (all-day: the day after the last day); at most 14 days after the start'),
  time_zone: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_+\\-/]+$', description: 'an IANA time zone name, e.g. America/New_York' }),
  all_day: Type.Boolean({ description: 'whole days in time_zone (default false)' }),
  recurrence: Type.Union([Type.String({ maxLength: 300 }), Type.Null()], {
    description: 'an RRULE of FREQ (DAILY, WEEKLY, MONTHLY, YEARLY), INTERVAL, COUNT (≤ 1000) or UNTIL, BYDAY, BYMONTHDAY; null: none',
  }),
  public: Type.Boolean({ description: 'in the public listing and the feed (default true)' }),
};

export const CreateBody = Type.Object({
  title: fields.title, start_at: fields.start_at, end_at: fields.end_at, time_zone: fields.time_zone,
  description: Type.Optional(fields.description), location: Type.Optional(fields.location), all_day: Type.Optional(fields.all_day),
  recurrence: Type.Optional(fields.recurrence), public: Type.Optional(fields.public),
}, { additionalProperties: false });

export const UpdateBody = Type.Partial(Type.Object(fields), { additionalProperties: false });

export const WindowQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'window start (default now)' })),
  to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'window end (default from + 60 days; at most 366 days after from)' })),
}, { additionalProperties: false });

const Dates = Type.Union([Type.Object({ first: Type.String(), last: Type.String() }), Type.Null()], { description: 'all-day events: first and last day' });
const publicFields = {
  uid: Type.String({ description: 'the iCalendar UID' }), title: Type.String(), description: Type.String(), location: Type.String(),
  start_at: Time, end_at: Time, time_zone: Type.String(), all_day: Type.Boolean(), recurrence: Type.Union([Type.String(), Type.Null()]), dates: Dates,
};
export const PublicEventOut = Type.Object(publicFields);
export const EventOut = Type.Object({
  id: Type.Integer(), source: Type.Union([Type.Literal('quad'), Type.Literal('discord')]),
  read_only: Type.Boolean({ description: 'copied from Discord: changed only there' }),
  ...publicFields, public: Type.Boolean(), sequence: Type.Integer(), created_at: Time, updated_at: Time,
});

const Occurrence = Type.Object({ uid: Type.String(), start_at: Time, end_at: Time });
const listing = <T extends typeof EventOut | typeof PublicEventOut>(event: T) => Type.Object({
  from: Time, to: Time,
  truncated: Type.Boolean({ description: 'more than 500 events or occurrences: ask for a shorter window' }),
  events: Type.Array(event, { description: 'the events with an occurrence in the window' }),
  occurrences: Type.Array(Occurrence, { description: 'every occurrence in the window, by start' }),
});
export const ListingOut = listing(EventOut);
export const PublicListingOut = listing(PublicEventOut);

export const FeedOut = Type.Object({ exists: Type.Boolean(), created_at: Type.Union([Time, Type.Null()]) });
export const FeedMadeOut = Type.Object({
  url: Type.String({ description: 'the subscription URL: shown this once' }), path: Type.String(), rotated: Type.Boolean(), created_at: Time,
});

export const SettingsOut = Type.Object({
  discord_sync: Type.Boolean(),
  discord_bound: Type.Boolean({ description: 'the org has a Discord server bound (sync needs one)' }),
  last_sync: Type.Union([Type.Object({ at: Time, error: Type.Union([Type.String(), Type.Null()]), changes: Type.Union([Type.Integer(), Type.Null()]) }), Type.Null()]),
});
export const SettingsBody = Type.Object({ discord_sync: Type.Boolean() }, { additionalProperties: false });
