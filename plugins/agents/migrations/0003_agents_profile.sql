-- A member's profile graph (spec "Agent records": profile nodes and relations). Nodes are exact (kind, label) pairs
-- per member: similar nodes are not merged. A relation links two nodes of the member and keeps the highest
-- confidence it was given. With pgvector (the core creates the extension when the server has it) a node also has the
-- vector of the text `kind: label`, from the org's embedder, for GET /profile/similar.
create table agents_profile_nodes (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  member_id text not null check (member_id ~ '^[0-9]{1,20}$'),
  kind text not null check (length(kind) between 1 and 100),
  label text not null check (length(label) between 1 and 500),
  -- the model of `embedding` (null: no vector)
  embedding_model text,
  created_at timestamptz not null default now()
);
create unique index agents_profile_nodes_key on agents_profile_nodes (organization_id, member_id, kind, label);
-- Matching and deletes by label ignore case.
create index agents_profile_nodes_label on agents_profile_nodes (organization_id, member_id, lower(label));

create table agents_profile_edges (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  member_id text not null check (member_id ~ '^[0-9]{1,20}$'),
  subject_id bigint not null references agents_profile_nodes (id) on delete cascade,
  relation text not null check (length(relation) between 1 and 200),
  object_id bigint not null references agents_profile_nodes (id) on delete cascade,
  confidence real not null check (confidence between 0 and 1),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index agents_profile_edges_key on agents_profile_edges (subject_id, relation, object_id);
create index agents_profile_edges_member on agents_profile_edges (organization_id, member_id, confidence desc);
create index agents_profile_edges_object on agents_profile_edges (object_id);

do $$
begin
  if exists (select 1 from pg_extension where extname = 'vector') then
    execute 'alter table agents_profile_nodes add column embedding vector(1024)';
  end if;
end
$$;
