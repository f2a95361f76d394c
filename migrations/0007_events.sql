-- Events, problems and the Activity page: when a notification was last raised, how often a problem was raised,
-- who resolved a notification or an error; errors get a status of their own; handler failures of the event
-- pipeline are logged with source 'event'. The CI cache of the dashboard (one row per org and repo).

alter table notifications
  add column raised_at timestamptz not null default now(),
  add column occurrences integer not null default 1 check (occurrences >= 1),
  add column resolved_at timestamptz,
  add column resolved_by text;
update notifications set raised_at = created_at;
create index notifications_org_category_raised on notifications (organization_id, category, raised_at desc, id desc);

alter table error_log
  add column status text not null default 'open' check (status in ('open', 'resolved')),
  add column resolved_at timestamptz,
  add column resolved_by text;
alter table error_log drop constraint error_log_source_check;
alter table error_log add constraint error_log_source_check check (source in ('request', 'job', 'event'));

create index audit_log_org_action on audit_log (organization_id, action);
create index job_runs_org_name on job_runs (organization_id, name, queued_at desc);

-- GitHub Actions runs per org and repo, kept 120 s. Keyed by org: a private repo's runs were read with that
-- org's token and are never shown to another org.
create table dashboard_ci_cache (
  organization_id integer not null references organizations (id) on delete cascade,
  -- owner/name in lower case (GitHub names are case-insensitive)
  repo text not null,
  -- whether the org's GitHub token was sent: connecting or removing the token makes the entry stale
  with_token boolean not null,
  fetched_at timestamptz not null default now(),
  runs jsonb not null default '[]',
  -- { reason, message } when GitHub refused or failed; runs is then empty
  error jsonb,
  primary key (organization_id, repo)
);
