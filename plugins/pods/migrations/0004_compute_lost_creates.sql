-- Creates whose pod may exist at the provider without a record here: the provider did not answer the create (it
-- timed out, failed or answered something unreadable, and may still make the pod), or a pod made for a create that
-- failed afterwards could not be deleted. Each create names itself in the pod's environment (PODHOST_CREATE_ID); the
-- job podhost.schedule lists the org's pods, deletes the one carrying a lost create's id and forgets the row, and
-- gives up on a row after 24 hours (lost-creates.ts).
create table compute_lost_creates (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  create_id uuid not null unique,
  name text not null,
  created_at timestamptz not null default now()
);
create index compute_lost_creates_org on compute_lost_creates (organization_id);
