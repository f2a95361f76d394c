-- Org secrets: integration credentials and module secrets, encrypted with SECRETS_KEY (AES-256-GCM).
-- ciphertext is `v1.<key id>.<iv>.<tag>.<data>`, bound to (organization_id, name); key_id names the key that
-- encrypted it, so rotation can find the rows still on an older key. The plain value is never stored.
create table org_secrets (
  organization_id integer not null references organizations (id) on delete cascade,
  name text not null,
  ciphertext text not null,
  key_id text not null,
  updated_at timestamptz not null default now(),
  updated_by text,
  primary key (organization_id, name)
);
create index org_secrets_key_id on org_secrets (key_id);
