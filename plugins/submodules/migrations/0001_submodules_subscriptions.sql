-- Org subscriptions to submodules (spec document 3, "States and transitions": org subscription): one row per org and
-- submodule while the org subscribes (at most 20 by default: limit submodules.subscriptions); ending a subscription
-- deletes the row (the audit log keeps both). refreshed_at is the last subscribe, a new one or again.
create table submodules_subscriptions (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  submodule text not null check (submodule ~ '^[a-z][a-z0-9_-]{1,39}$'),
  subscribed_by text,
  created_at timestamptz not null default now(),
  refreshed_at timestamptz not null default now(),
  unique (organization_id, submodule)
);
-- Subscriber counts and "which submodules have subscribers" (the deployment's crawl of shared pages).
create index submodules_subscriptions_submodule on submodules_subscriptions (submodule);
