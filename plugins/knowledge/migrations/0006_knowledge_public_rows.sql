-- Public sources are read by every org through row-level security (the manifest declares `public` on the three
-- tables; README "Tenancy"), so a search or the reader reaches another org's public passages on its own org-bound
-- handle. A policy tests the row itself (a join per row would cost every search), so versions and passages carry a
-- copy of their source's flag.
alter table knowledge_versions add column public boolean not null default false;
alter table knowledge_chunks add column public boolean not null default false;
update knowledge_versions v set public = true from knowledge_sources s where s.id = v.source_id and s.public;
update knowledge_chunks c set public = true from knowledge_sources s where s.id = c.source_id and s.public;

-- The copies follow their source: the foreign keys name (source, flag), so a source's changed flag reaches its
-- version and passages in the same statement, and a version or passage whose flag is not its source's is refused.
alter table knowledge_sources add constraint knowledge_sources_id_public unique (id, public);
alter table knowledge_versions drop constraint knowledge_versions_source_id_fkey,
  add constraint knowledge_versions_source foreign key (source_id, public)
    references knowledge_sources (id, public) on delete cascade on update cascade;
alter table knowledge_chunks drop constraint knowledge_chunks_source_id_fkey,
  add constraint knowledge_chunks_source foreign key (source_id, public)
    references knowledge_sources (id, public) on delete cascade on update cascade;

-- The search's part "other orgs' public passages" (search.ts searchScope) by index, like the org's own part
-- (knowledge_versions_org_model, knowledge_chunks_org_model) and the shared pages' (migrations/0005).
create index knowledge_versions_public_model on knowledge_versions (embedding_model) include (chunk_count) where public;
create index knowledge_chunks_public_model on knowledge_chunks (embedding_model) where public;
