-- Limits: the superadmin's per-org overrides and the rate-limit counters (spec document 1, "Limits").

-- An override of a limit's value for one org; value null means "no limit". No row: the setting
-- LIMIT_<KEY> or the manifest default applies.
create table org_limits (
  organization_id integer not null references organizations (id) on delete cascade,
  key text not null,
  value integer check (value is null or value >= 0),
  updated_by text,
  updated_at timestamptz not null default now(),
  primary key (organization_id, key)
);

-- Use of a rate limit in one UTC window (minute, hour or day); written by LimitsEngine.consume() with one
-- conditional upsert on the caller's transaction. The job limits.prune deletes windows older than 8 days.
create table usage_counters (
  organization_id integer not null references organizations (id) on delete cascade,
  key text not null,
  window_start timestamptz not null,
  count bigint not null check (count >= 0),
  primary key (organization_id, key, window_start)
);
create index usage_counters_window_start on usage_counters (window_start);
