-- The overlap each version's passages were cut with (issue 42): the reader strips the text a passage repeats from
-- the end of the previous one, and must strip what the version was built with, not the org's chunk_overlap of today
-- (changed since, the passages would keep repeating or lose text). 0: passages that repeat nothing (a client's own
-- chunks, shared pages); null: unknown (a version written before this column), read with the org's current setting.
alter table knowledge_versions add column if not exists chunk_overlap integer check (chunk_overlap between 0 and 2000);

-- What the existing versions tell: shared pages are split with none; an upload's hash names its overlap
-- (documents.ts: upload:<sha256 of the bytes>:<chunk_chars>:<overlap>); a client's chunks (origin api, and not
-- text a module wrote through knowledge.org_sources, whose hash starts text:) are read as written. Crawls' hashes
-- keep their overlap inside the digest: they stay unknown until their next crawl.
update knowledge_versions set chunk_overlap = 0 where shared_scope is not null;
update knowledge_versions v set chunk_overlap = least(substring(v.content_hash from ':([0-9]{1,4})$')::integer, 2000)
  from knowledge_sources s
  where s.id = v.source_id and s.origin = 'upload' and v.content_hash ~ '^upload:[0-9a-f]{64}:[0-9]{1,4}:[0-9]{1,4}$';
update knowledge_versions v set chunk_overlap = 0
  from knowledge_sources s
  where s.id = v.source_id and s.origin = 'api' and v.content_hash not like 'text:%' and v.shared_scope is null;
