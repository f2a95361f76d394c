-- Feeds (spec document 3, "Feed"): scheduled postings of new listings to one Discord webhook per feed. The webhook
-- URL is not here: it is the org secret alert_webhook_<key>, encrypted by the core's secret store.
create table feeds (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  key text not null check (key ~ '^[a-z0-9-]{1,40}$'),
  kind text not null check (kind in ('repo_jobs', 'hackathons')),
  every_hours integer not null default 3 check (every_hours between 1 and 168),
  enabled boolean not null default true,
  -- the kind's config with every default filled in (feed-config.ts)
  config jsonb not null,
  -- when the schedule runs it next; moved a period ahead when a run is started, so two schedule runs never both take it
  next_run_at timestamptz not null default now(),
  -- null until the first run recorded the listing (the first-run rule: record, post nothing)
  first_run_at timestamptz,
  last_run_at timestamptz,
  last_error text,
  posts integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index feeds_key on feeds (organization_id, key);
-- The schedule's scan: enabled feeds by due time.
create index feeds_due on feeds (next_run_at) where enabled;

-- Every listing item a feed has seen, so a later run knows what is new. status: recorded (seen on the first run, not
-- posted), new (waiting to be posted; a failed post stays new), posted. Items no longer listed are pruned after
-- 30 days, so the table follows the listing, not the feed's age.
create table feeds_items (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  feed_id integer not null references feeds (id) on delete cascade,
  item_key text not null,
  status text not null check (status in ('recorded', 'new', 'posted')),
  title text not null,
  url text not null,
  -- what the Discord message needs (the kind's fields)
  data jsonb not null,
  first_seen_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  posted_at timestamptz
);
create unique index feeds_items_key on feeds_items (feed_id, item_key);
-- The posting queue (oldest first) and the history (newest first).
create index feeds_items_new on feeds_items (feed_id, first_seen_at, id) where status = 'new';
create index feeds_items_recent on feeds_items (feed_id, coalesce(posted_at, first_seen_at) desc, id desc);

-- One row per run (the spec's table alert_runs); the last 50 of a feed are kept.
create table alert_runs (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  feed_id integer not null references feeds (id) on delete cascade,
  started_at timestamptz not null,
  duration_ms integer not null,
  found integer not null default 0,
  new integer not null default 0,
  posted integer not null default 0,
  -- why the run failed (then kept in feeds.last_error too)
  error text,
  -- what went wrong without failing the run: a hackathon source down, README rows that could not be read
  note text,
  -- schedule (feeds.run_due) or manual (Run now, a tool)
  trigger text not null check (trigger in ('schedule', 'manual'))
);
create index alert_runs_feed on alert_runs (feed_id, started_at desc, id desc);

-- Feeds replaced two older modules (document 1, "Versioning"): orgs that had either now have feeds on.
update organizations set modules = modules || '{"feeds": true}'::jsonb
where modules -> 'job_webhook' = 'true'::jsonb or modules -> 'hackathon_webhook' = 'true'::jsonb;
