-- The memory of agents that talk to members (spec document 2, "Agent records"): conversations with their messages
-- and summaries, and pending actions. A member is a chat user id within one org: the same id in two orgs is two
-- members, so every row carries its org and every lookup starts with it. Ids that agents choose (conversation and
-- pending uuids) are unique per org only, so one org's ids never collide with, or reveal, another's.

create table agents_conversations (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  uuid uuid not null,
  member_id text not null check (member_id ~ '^[0-9]{1,20}$'),
  channel_id text not null check (channel_id ~ '^[0-9]{1,20}$'),
  visibility text not null check (visibility in ('public', 'private')),
  -- the seq of the newest message: messages take the next ones under this row's lock, so seqs have no gaps
  last_seq integer not null default 0,
  ended_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index agents_conversations_uuid on agents_conversations (organization_id, uuid);
-- GET /channels/<channel>/latest: the member's open conversation of a channel with the latest update.
create index agents_conversations_open on agents_conversations (organization_id, member_id, channel_id, updated_at desc) where ended_at is null;
-- agents.prune: conversations idle past AGENT_RETENTION_DAYS.
create index agents_conversations_idle on agents_conversations (updated_at);

create table agents_messages (
  conversation_id bigint not null references agents_conversations (id) on delete cascade,
  seq integer not null check (seq >= 1),
  role text not null check (role in ('user', 'assistant', 'system', 'tool')),
  content text not null,
  created_at timestamptz not null default now(),
  primary key (conversation_id, seq)
);

create table agents_summaries (
  id bigserial primary key,
  conversation_id bigint not null references agents_conversations (id) on delete cascade,
  content text not null,
  -- the last seq the summary replaces
  covers integer not null check (covers >= 0),
  created_at timestamptz not null default now()
);
create index agents_summaries_newest on agents_summaries (conversation_id, id desc);

create table agents_pending (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  uuid uuid not null,
  member_id text not null check (member_id ~ '^[0-9]{1,20}$'),
  action text not null,
  payload_hash text not null,
  expires_at timestamptz not null,
  answered_at timestamptz,
  approved boolean,
  created_at timestamptz not null default now()
);
create unique index agents_pending_uuid on agents_pending (organization_id, uuid);
create index agents_pending_expiry on agents_pending (expires_at);
