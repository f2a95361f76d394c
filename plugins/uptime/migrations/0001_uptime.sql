-- Uptime: monitors of http(s) URLs, their raw checks (30 days) and one rollup row per monitor and UTC day (400 days),
-- maintained as each check is written so that no view ever aggregates the raw history.
create table uptime_monitors (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 100),
  url text not null check (char_length(url) between 1 and 2048),
  interval_seconds integer not null default 300 check (interval_seconds between 60 and 86400),
  expected_status integer not null default 200 check (expected_status between 100 and 599),
  timeout_ms integer not null default 10000 check (timeout_ms between 1000 and 30000),
  -- must appear (case-sensitive) in the first 1 MB of the body; null: not checked
  keyword text check (char_length(keyword) between 1 and 200),
  -- consecutive failures before the monitor is down
  down_after integer not null default 2 check (down_after between 1 and 10),
  paused boolean not null default false,
  -- pending until the first decisive check; a paused monitor shows "paused" whatever this says
  state text not null default 'pending' check (state in ('pending', 'up', 'down')),
  consecutive_failures integer not null default 0,
  state_changed_at timestamptz,
  -- when the schedule checks it next; moved an interval ahead when a run claims it, so no other run takes it
  next_check_at timestamptz not null default now(),
  -- the last check, kept here so the list reads no check rows for it
  last_check_at timestamptz,
  last_ok boolean,
  last_status integer,
  last_latency_ms integer,
  last_reason text,
  last_message text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index uptime_monitors_org on uptime_monitors (organization_id, id);
-- The schedule's scan: monitors not paused, by due time.
create index uptime_monitors_due on uptime_monitors (next_check_at) where not paused;

-- One row per check. reason: null on success, else status_mismatch, keyword_missing, timeout, refused, network,
-- too_large or too_many_redirects; message says it for an officer (host names only, never a resolved address).
create table uptime_checks (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  monitor_id integer not null references uptime_monitors (id) on delete cascade,
  checked_at timestamptz not null,
  ok boolean not null,
  -- the answer's status (after redirects); null when there was no answer
  status integer,
  latency_ms integer not null,
  reason text,
  message text
);
-- Latest checks of a monitor, and its last 24 hours read from the index alone (ok included).
create index uptime_checks_monitor on uptime_checks (monitor_id, checked_at desc, id desc) include (ok);
-- uptime.prune's scan.
create index uptime_checks_age on uptime_checks (checked_at);

-- One row per monitor and UTC day, updated in the transaction that writes each check. Latency counts checks that
-- got an answer (a timeout or a refused address has no latency worth averaging).
create table uptime_days (
  organization_id integer not null references organizations (id) on delete cascade,
  monitor_id integer not null references uptime_monitors (id) on delete cascade,
  day date not null,
  checks integer not null default 0,
  up integer not null default 0,
  answered integer not null default 0,
  latency_sum bigint not null default 0,
  latency_min integer,
  latency_max integer,
  primary key (monitor_id, day)
);
create index uptime_days_org on uptime_days (organization_id);
create index uptime_days_age on uptime_days (day);
