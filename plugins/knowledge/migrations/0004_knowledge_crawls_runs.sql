-- Sources that fill themselves (spec "Crawl record", "Run record"): where a source came from, the crawl records that
-- fetch a URL on a schedule, and the run log of crawls and uploads.

-- api: written by a client as chunks; crawl and upload: split by the service, each passage starting with the
-- page title on its own line (the reader strips it).
alter table knowledge_sources add column origin text not null default 'api' check (origin in ('api', 'crawl', 'upload'));

-- A crawl record is keyed like the source it fills; the source is made by the first crawl that succeeds (and counts
-- against knowledge.sources then), so a record can exist before its source does.
create table knowledge_crawls (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  key text not null check (key ~ '^[A-Za-z0-9._:/-]{1,255}$'),
  url text not null check (length(url) <= 2048),
  category text not null default '',
  title text not null default '',
  public boolean not null default false,
  fetch_every_hours integer not null default 24 check (fetch_every_hours between 1 and 720),
  enabled boolean not null default true,
  -- when the schedule crawls it next; set forward when a crawl is started, so two schedule runs never both take it
  next_at timestamptz not null default now(),
  last_attempt_at timestamptz,
  last_success_at timestamptz,
  last_error text,
  -- sha256 of the last page fetched: unchanged, the crawl stops (unless forced)
  page_hash text,
  -- characters of the text last written: a new text under half of it (when it was 500 or more) is refused unless forced
  text_chars integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index knowledge_crawls_key on knowledge_crawls (organization_id, key);
-- The schedule's scan: due records only, soonest first.
create index knowledge_crawls_due on knowledge_crawls (next_at) where enabled;

-- The run log: the last 500 per org are kept (older rows are deleted as new ones come).
create table knowledge_runs (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  source_key text not null,
  kind text not null check (kind in ('crawl', 'upload')),
  started_at timestamptz not null,
  duration_ms integer not null check (duration_ms >= 0),
  changed boolean not null,
  passages integer not null default 0,
  error text
);
create index knowledge_runs_org on knowledge_runs (organization_id, id desc);
create index knowledge_runs_failed on knowledge_runs (organization_id, id desc) where error is not null;
