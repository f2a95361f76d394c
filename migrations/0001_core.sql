-- Core tables: orgs, notifications, audit and error logs, job runs.

create table organizations (
  id serial primary key,
  prefix text not null unique check (prefix ~ '^[a-z][a-z0-9-]{1,31}$'),
  name text not null,
  discord_guild_id text unique,
  officer_role_id text,
  description text not null default '',
  points_per_message integer not null default 1 check (points_per_message >= 0),
  points_cooldown_seconds integer not null default 60 check (points_cooldown_seconds >= 0),
  modules jsonb not null default '{}',
  config jsonb not null default '{}',
  created_at timestamptz not null default now()
);

create table notifications (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  category text not null default 'event' check (category in ('event', 'problem')),
  kind text not null,
  problem_key text,
  title text not null,
  message text not null default '',
  data jsonb not null default '{}',
  status text not null default 'open' check (status in ('open', 'resolved')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index notifications_org_created on notifications (organization_id, created_at desc);
create unique index notifications_problem_key on notifications (organization_id, problem_key) where problem_key is not null;

create table audit_log (
  id bigserial primary key,
  organization_id integer references organizations (id) on delete cascade,
  actor text not null,
  action text not null,
  details jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index audit_log_org_created on audit_log (organization_id, created_at desc);

create table error_log (
  id bigserial primary key,
  organization_id integer references organizations (id) on delete cascade,
  source text not null check (source in ('request', 'job')),
  origin text not null,
  request_id text,
  message text not null,
  log_line text not null,
  host text not null,
  release text not null,
  stack text,
  created_at timestamptz not null default now()
);
create index error_log_created on error_log (created_at desc);
create index error_log_org_created on error_log (organization_id, created_at desc);

create table job_runs (
  id bigserial primary key,
  organization_id integer references organizations (id) on delete cascade,
  name text not null,
  scope_key text,
  status text not null check (status in ('queued', 'running', 'succeeded', 'failed')),
  payload jsonb not null default '{}',
  attempts integer not null default 0,
  error text,
  queued_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index job_runs_org_queued on job_runs (organization_id, queued_at desc);
-- One-at-a-time jobs: a second queued or running run of the same (name, scope) violates this index.
create unique index job_runs_once on job_runs (name, scope_key) where scope_key is not null and status in ('queued', 'running');
