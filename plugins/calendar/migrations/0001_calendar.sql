-- Calendar (document 1, "What the service does": the calendar module): org events with a time zone and an optional
-- recurrence rule, a per-org iCalendar feed (its token kept only as a SHA-256 hash) and the Discord sync's settings.

create table calendar_events (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  -- stable iCalendar UID (the feed's subscribers key their copies by it)
  uid text not null,
  -- quad: made by an officer or a tool; discord: copied from a Discord scheduled event by the sync (read-only here)
  source text not null default 'quad' check (source in ('quad', 'discord')),
  discord_event_id text,
  title text not null check (length(title) between 1 and 200),
  description text not null default '' check (length(description) <= 5000),
  location text not null default '' check (length(location) <= 500),
  -- the first occurrence; all-day events: midnight of the first day and of the day after the last, in time_zone
  start_at timestamptz not null,
  end_at timestamptz not null,
  time_zone text not null,
  all_day boolean not null default false,
  -- a normalized RRULE of the module's subset (recurrence.ts), or null
  recurrence text,
  -- when the series' last occurrence ends ('infinity' for a rule without COUNT or UNTIL): listings read only the
  -- events that reach into their window, so old events cost nothing
  series_end_at timestamptz not null,
  public boolean not null default true,
  -- bumped on every change (iCalendar SEQUENCE)
  sequence integer not null default 0,
  created_by text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (end_at > start_at and end_at <= start_at + interval '14 days 1 hour'),
  check ((source = 'discord') = (discord_event_id is not null))
);
create unique index calendar_events_uid on calendar_events (organization_id, uid);
create unique index calendar_events_discord on calendar_events (organization_id, discord_event_id) where discord_event_id is not null;
-- A window's events: those whose series has not ended by the window's start.
create index calendar_events_window on calendar_events (organization_id, series_end_at, start_at);

-- One subscription URL per org; rotating replaces the hash (the old URL stops working), revoking deletes the row.
create table calendar_feeds (
  organization_id integer primary key references organizations (id) on delete cascade,
  token_hash bytea not null,
  created_at timestamptz not null default now()
);
create unique index calendar_feeds_token on calendar_feeds (token_hash);

-- Per-org settings and the last Discord sync's outcome.
create table calendar_settings (
  organization_id integer primary key references organizations (id) on delete cascade,
  discord_sync boolean not null default false,
  last_sync_at timestamptz,
  last_sync_error text,
  last_sync_changes integer
);
-- The half-hourly schedule's scan.
create index calendar_settings_sync on calendar_settings (organization_id) where discord_sync;
