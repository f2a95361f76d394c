// Vector search by scope size: a small scope is searched exactly (binary-quantized scan, re-ranked); a large one
// takes the HNSW index with iterative scans, and an index path that comes back short (the org a far, small slice of
// the table) is answered exactly. Both give a small org its true top_k; the index path's plan takes the HNSW index.
import t from 'tap';
import { fakeEmbedding } from '@quad/core/testing';
import { pages, startKnowledgeWorld } from './world.js';

for (const [path, exactScanMax] of [['exact search (a small scope)', undefined], ['the index path (every scope "large")', 0]] as const) {
t.test(`a small org beside 4000 nearer passages gets its true top_k: ${path}`, async (t) => {
  const w = await startKnowledgeWorld(t, { config: exactScanMax === undefined ? {} : { KNOWLEDGE_EXACT_SCAN_MAX: exactScanMax } });
  // beta: 4000 passages with vectors near the query's (the query's vector plus noise), so the graph's nearest
  // neighbours are all beta's and a plain filtered scan would stop with few or none of acm's.
  const [src] = await w.sql<{ id: number }>("insert into knowledge_sources (organization_id, key) values (?, 'bulk') returning id", [w.beta.id]);
  const [ver] = await w.sql<{ id: string }>("insert into knowledge_versions (organization_id, source_id, content_hash, embedding_model, chunk_count) values (?, ?, 'h', 'fake-1', 4000) returning id", [w.beta.id, src.id]);
  await w.sql(`update knowledge_sources set current_version_id = ? where id = ?`, [ver.id, src.id]);
  const q = fakeEmbedding('library note');
  await w.sql(
    `insert into knowledge_chunks (organization_id, source_id, version_id, ordinal, content, embedding_model, embedding)
     select ?, ?, ?, g, 'bulk passage ' || g, 'fake-1',
       (select array_agg(x + (random() - 0.5) * 0.02) from unnest(?::real[]) x)::vector
     from generate_series(1, 4000) g`, [w.beta.id, src.id, ver.id, `{${q.join(',')}}`]);
  await w.sql('analyze knowledge_chunks');
  t.equal((await w.put('notes/acm', { chunks: pages(...Array.from({ length: 12 }, (_, i) => `library note ${i} of acm`)) })).statusCode, 201);
  await w.asOfficer('PUT', '/api/dashboard/acm/knowledge/settings', { mode: 'vector', max_distance: 2 });

  const res = (await w.search({ query: 'library note', top_k: 10 })).json();
  t.equal(res.dense, true);
  t.equal(res.results.length, 10, 'ten of acm\'s passages, though 4000 nearer ones belong to beta');
  t.ok(res.results.every((r: { source_key: string }) => r.source_key === 'notes/acm'));
  // The true top 10: every passage of acm ordered by cosine distance.
  const truth = await w.sql<{ id: string }>(`select id from knowledge_chunks where organization_id = ? order by (embedding <=> ?::vector) + 0, id limit 10`, [w.org.id, `[${q.join(',')}]`]);
  t.same(res.results.map((r: { chunk_id: number }) => r.chunk_id), truth.map((r) => Number(r.id)), 'in the order of true distance');

  // The index path's query shape takes the HNSW index: with sorts off (as the search sets them) nothing else orders.
  // Here its iterative scan ends at pgvector's memory cap before reaching acm's far rows: on the index path the
  // search above filled its top_k through the exact search.
  const onIndex = (iterative: 'relaxed_order' | 'off') => w.quad.orm.em.fork().transactional(async (tx) => {
    await tx.execute('set local enable_sort = off');
    await tx.execute(`set local hnsw.iterative_scan = ${iterative}`);
    await tx.execute('set local hnsw.ef_search = 40');
    const sql = `select c.id from knowledge_chunks c
      where c.embedding is not null and c.embedding_model = 'fake-1'
        and (c.organization_id = ? or c.source_id in (select id from knowledge_sources where public))
      order by c.embedding <=> ?::vector limit 10`;
    const plan = (await tx.execute(`explain ${sql}`, [w.org.id, `[${q.join(',')}]`])).map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    return { plan, rows: (await tx.execute(sql, [w.org.id, `[${q.join(',')}]`])).length };
  });
  const relaxed = await onIndex('relaxed_order');
  t.match(relaxed.plan, /knowledge_chunks_embedding/, 'the HNSW index');
  t.ok((await onIndex('off')).rows < 10, 'a filtered scan without iterative scans comes back short');
});
}
