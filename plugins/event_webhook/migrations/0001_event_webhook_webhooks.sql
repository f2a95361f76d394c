-- Outbound event webhooks of an org (at most 20 by default: limit event_webhook.webhooks). The destination is
-- the Discord webhook URL encrypted with the org's event_webhook.key (an org secret); the plain URL is never
-- stored. last_* hold the result of the last message (a delivery or a test).
create table event_webhook_webhooks (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  name text not null check (length(name) between 1 and 100),
  destination text not null,
  events text[] not null default '{}',
  enabled boolean not null default true,
  last_at timestamptz,
  last_ok boolean,
  last_event text,
  last_error text,
  created_by text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index event_webhook_webhooks_name on event_webhook_webhooks (organization_id, lower(name));
