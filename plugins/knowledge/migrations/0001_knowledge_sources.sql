-- Knowledge sources, their versions and passages (spec "Knowledge source"). A source is keyed per org; each write
-- that changes its content makes a new version and replaces the old one and its chunks in one transaction, so a
-- source has exactly one version at rest (current_version_id).
create table knowledge_sources (
  id serial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  -- letters, digits and ._:/- ; 255 characters or fewer; chosen by the writer
  key text not null check (key ~ '^[A-Za-z0-9._:/-]{1,255}$'),
  category text not null default '',
  title text not null default '',
  url text not null default '',
  public boolean not null default false,
  current_version_id bigint,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index knowledge_sources_key on knowledge_sources (organization_id, key);
create index knowledge_sources_category on knowledge_sources (organization_id, category);
-- Public sources are read across orgs (search scope, the reader's fallback to the oldest public one).
create index knowledge_sources_public on knowledge_sources (key, created_at) where public;

create table knowledge_versions (
  id bigserial primary key,
  organization_id integer not null references organizations (id) on delete cascade,
  source_id integer not null references knowledge_sources (id) on delete cascade,
  content_hash text not null,
  -- the model the chunks' vectors came from; null: text only
  embedding_model text,
  chunk_count integer not null check (chunk_count between 0 and 5000),
  created_at timestamptz not null default now()
);
create index knowledge_versions_source on knowledge_versions (source_id);
alter table knowledge_sources add constraint knowledge_sources_current_version
  foreign key (current_version_id) references knowledge_versions (id) on delete set null;

create table knowledge_chunks (
  id bigserial primary key,
  -- denormalised from the source, so searches filter by org without a join
  organization_id integer not null references organizations (id) on delete cascade,
  source_id integer not null references knowledge_sources (id) on delete cascade,
  version_id bigint not null references knowledge_versions (id) on delete cascade,
  ordinal integer not null,
  -- 0 is page text; 1 and higher summarize the rows below (parent_ordinal points from a row to its summary)
  level integer not null default 0 check (level >= 0),
  parent_ordinal integer,
  content text not null check (length(content) <= 20000),
  -- the model of `embedding` (null: no vector); vector search reads only rows of the org's current model
  embedding_model text,
  -- full-text search reads this stored column (GIN below): no to_tsvector per query
  tsv tsvector generated always as (to_tsvector('english', content)) stored
);
create unique index knowledge_chunks_ordinal on knowledge_chunks (version_id, ordinal);
create index knowledge_chunks_source on knowledge_chunks (source_id);
create index knowledge_chunks_org_model on knowledge_chunks (organization_id, embedding_model);
create index knowledge_chunks_tsv on knowledge_chunks using gin (tsv);

-- The vector column and its HNSW index need pgvector (the core creates the extension when the server has it; the
-- manifest declares it). Without it the module runs text only and writes keep no vectors.
do $$
begin
  if exists (select 1 from pg_available_extensions where name = 'vector') then
    begin
      create extension if not exists vector;
    exception when insufficient_privilege then
      null; -- not a superuser: the operator creates it once; until then text only
    end;
  end if;
  if exists (select 1 from pg_extension where extname = 'vector') then
    execute 'alter table knowledge_chunks add column embedding vector(1024)';
    execute 'create index knowledge_chunks_embedding on knowledge_chunks using hnsw (embedding vector_cosine_ops)';
  end if;
end
$$;
