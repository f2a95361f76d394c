-- Shared pages of submodules (spec "Submodules", "Crawl and search behavior"): a page the deployment crawls once for
-- every org that subscribes to its submodule. Its crawl record, source, version and passages belong to no org: their
-- organization_id is null and shared_scope names the submodule. Exactly one of the two is set on every row, so every
-- org-scoped query (`organization_id = ?`) keeps seeing only its org's rows, and org limits (which count by
-- organization_id) never count shared rows. Shared rows are never public: the public fallbacks never see them.
alter table knowledge_sources alter column organization_id drop not null;
alter table knowledge_sources add column shared_scope text check (shared_scope ~ '^[a-z0-9][a-z0-9_-]{0,63}$');
alter table knowledge_sources add constraint knowledge_sources_owner check ((organization_id is null) <> (shared_scope is null));
alter table knowledge_sources add constraint knowledge_sources_shared_private check (shared_scope is null or not public);
create unique index knowledge_sources_shared_key on knowledge_sources (shared_scope, key) where shared_scope is not null;

alter table knowledge_crawls alter column organization_id drop not null;
alter table knowledge_crawls add column shared_scope text check (shared_scope ~ '^[a-z0-9][a-z0-9_-]{0,63}$');
alter table knowledge_crawls add constraint knowledge_crawls_owner check ((organization_id is null) <> (shared_scope is null));
alter table knowledge_crawls add constraint knowledge_crawls_shared_private check (shared_scope is null or not public);
-- The upsert of a submodule's pages (sync) and the status per submodule.
create unique index knowledge_crawls_shared_key on knowledge_crawls (shared_scope, key) where shared_scope is not null;

-- Versions and passages carry the owner of their source (denormalised like organization_id), so a search's scope
-- part for subscribed submodules reads them by index without a join.
alter table knowledge_versions alter column organization_id drop not null;
alter table knowledge_versions add column shared_scope text;
alter table knowledge_versions add constraint knowledge_versions_owner check ((organization_id is null) <> (shared_scope is null));
create index knowledge_versions_shared_model on knowledge_versions (shared_scope, embedding_model) include (chunk_count)
  where shared_scope is not null;

alter table knowledge_chunks alter column organization_id drop not null;
alter table knowledge_chunks add column shared_scope text;
alter table knowledge_chunks add constraint knowledge_chunks_owner check ((organization_id is null) <> (shared_scope is null));
create index knowledge_chunks_shared_model on knowledge_chunks (shared_scope, embedding_model) where shared_scope is not null;
