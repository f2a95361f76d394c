-- Exact vector search for small scopes (search.ts, EXACT_SCAN_MAX): the scope's size is summed over versions, and
-- each passage keeps a binary-quantized copy of its vector (1 bit a dimension, 128 bytes, in the row where a
-- 4 KB vector is in TOAST), which an exact scan ranks by Hamming distance before re-ranking the best by cosine.
create index knowledge_versions_org_model on knowledge_versions (organization_id, embedding_model) include (chunk_count);
do $$
begin
  if exists (select 1 from pg_attribute where attrelid = 'knowledge_chunks'::regclass and attname = 'embedding' and not attisdropped) then
    execute 'alter table knowledge_chunks add column embedding_bits bit(1024)
      generated always as (binary_quantize(embedding)::bit(1024)) stored';
  end if;
end
$$;
