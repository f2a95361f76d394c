-- Credentials: people, one-time sign-in codes, refresh tokens, revocations, legacy app tokens, machine tokens.
-- Every secret is stored as its SHA-256 hash; the plain value is shown once and never kept.

create table users (
  id serial primary key,
  chat_user_id text unique,
  username text,
  email text unique check (email = lower(email)),
  student_id text,
  created_at timestamptz not null default now()
);

create table sign_in_codes (
  code_hash text primary key,
  chat_user_id text not null,
  username text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);

create table refresh_tokens (
  token_hash text primary key,
  chat_user_id text not null,
  username text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index refresh_tokens_user on refresh_tokens (chat_user_id);

-- Revoked access and app tokens by JWT id, kept until the token would have expired anyway.
create table revoked_tokens (
  jti text primary key,
  revoked_at timestamptz not null default now(),
  expires_at timestamptz not null
);

create table app_tokens (
  id serial primary key,
  jti text not null unique,
  chat_user_id text not null,
  username text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index app_tokens_user on app_tokens (chat_user_id);

create table machine_tokens (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  name text not null check (length(name) between 1 and 100),
  kind text not null check (kind in ('app', 'agent', 'cli')),
  scopes text[] not null,
  limits jsonb not null default '{}',
  token_hash text not null unique,
  token_prefix text not null,
  created_by text not null,
  -- CLI tokens belong to one member; a new one revokes the member's previous one.
  member_chat_user_id text,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index machine_tokens_org on machine_tokens (organization_id, created_at desc);
