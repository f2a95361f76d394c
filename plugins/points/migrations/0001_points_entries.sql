-- The points ledger: one signed row per award, check-in, message, order or refund. A member's balance in an org
-- is the sum of their rows; nothing else stores it.
create table points_entries (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  user_id integer not null references users (id) on delete cascade,
  amount integer not null check (amount <> 0),
  -- award | checkin | message | order | refund
  source text not null check (source in ('award', 'checkin', 'message', 'order', 'refund')),
  reason text not null default '' check (length(reason) <= 500),
  event_name text check (event_name is null or length(event_name) between 1 and 200),
  -- who wrote it: officer:<chat id>, member:<chat id>, idp:<user id>, system
  awarded_by text not null,
  -- the Discord message a per-message award is for (one award per message)
  message_id text,
  -- what else the row belongs to, e.g. order:<id> for store rows
  ref text,
  created_at timestamptz not null default now()
);
create index points_entries_member on points_entries (organization_id, user_id, created_at desc);
create index points_entries_event on points_entries (organization_id, event_name) where event_name is not null;
create index points_entries_created on points_entries (organization_id, created_at);
create unique index points_entries_message on points_entries (organization_id, message_id) where message_id is not null;
-- A member checks in to an event once: uploading the same sheet again skips them.
create unique index points_entries_checkin on points_entries (organization_id, event_name, user_id) where source = 'checkin';
-- The last per-message award of a member (cooldown check).
create index points_entries_last_message on points_entries (organization_id, user_id, created_at desc) where source = 'message';
