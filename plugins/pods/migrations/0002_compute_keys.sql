-- The org's two SSH key pairs (spec "Records": compute_keys, made at the first pod, private parts encrypted with
-- SECRETS_KEY): `backend` (its public key is root's authorized key on each pod; the service logs in with it) and
-- `user_ca` (pods trust it as a user certificate authority; it signs members' and officers' certificates).
-- One row per (org, kind): the primary key makes concurrent first pods agree on one pair.
create table compute_keys (
  organization_id integer not null references organizations (id) on delete cascade,
  kind text not null check (kind in ('backend', 'user_ca')),
  public_key text not null,
  private_key_sealed text not null,
  created_at timestamptz not null default now(),
  primary key (organization_id, kind)
);

-- One row per certificate issued (spec "Records": compute_connections): who connected to which pod under which
-- username, as root (is_admin) or not. The connected route maps a pod's usernames back to members with it; rows
-- older than 90 days of the org are deleted at each new row.
create table compute_connections (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  pod_id text not null,
  chat_user_id text not null,
  username text not null,
  is_admin boolean not null,
  created_at timestamptz not null default now()
);
create index compute_connections_pod on compute_connections (organization_id, pod_id, created_at desc);
create index compute_connections_age on compute_connections (organization_id, created_at);
