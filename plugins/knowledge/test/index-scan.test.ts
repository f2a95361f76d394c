// Vector search by scope size: a small scope is searched exactly (binary-quantized scan, re-ranked); a large one
// takes the HNSW index with iterative scans, and an index path that comes back short (the org a far, small slice of
// the table) is answered exactly. Both give a small org its true top_k; the index path's plan takes the HNSW index,
// and each part of the scope its own index, on the org's handle (under row-level security), where a text condition
// could take no index: why the text matches come from a function that runs as the tables' owner.
import t from 'tap';
import { orgDb, sql, type EntityManager, type OrgDb, type SqlFragment } from '@quad/core';
import { fakeEmbedding, type TeardownHost } from '@quad/core/testing';
import { searchScope } from '../search.js';
import { pages, startKnowledgeWorld, type KnowledgeWorld, type KnowledgeWorldOptions } from './world.js';

const q = fakeEmbedding('library note');
const queryVector = `[${q.join(',')}]`;

/** A world where beta holds 4000 passages with vectors near the query's (the query's vector plus noise), so the
 *  graph's nearest neighbours are all beta's and a plain filtered scan would stop with few or none of acm's. */
async function bulkWorld(t: TeardownHost, options: KnowledgeWorldOptions = {}): Promise<KnowledgeWorld> {
  const w = await startKnowledgeWorld(t, options);
  const [src] = await w.sql<{ id: number }>("insert into knowledge_sources (organization_id, key) values (?, 'bulk') returning id", [w.beta.id]);
  const [ver] = await w.sql<{ id: string }>("insert into knowledge_versions (organization_id, source_id, content_hash, embedding_model, chunk_count) values (?, ?, 'h', 'fake-1', 4000) returning id", [w.beta.id, src.id]);
  await w.sql(`update knowledge_sources set current_version_id = ? where id = ?`, [ver.id, src.id]);
  await w.sql(
    `insert into knowledge_chunks (organization_id, source_id, version_id, ordinal, content, embedding_model, embedding)
     select ?, ?, ?, g, 'bulk passage ' || g, 'fake-1',
       (select array_agg(x + (random() - 0.5) * 0.02) from unnest(?::real[]) x)::vector
     from generate_series(1, 4000) g`, [w.beta.id, src.id, ver.id, `{${q.join(',')}}`]);
  await w.sql('analyze knowledge_chunks');
  return w;
}

/** The plan of `statement` on `db`. */
const planOf = async (db: OrgDb, statement: SqlFragment) =>
  (await db.query<{ 'QUERY PLAN': string }>(sql`explain ${statement}`)).map((r) => r['QUERY PLAN']).join('\n');

for (const [path, exactScanMax] of [['exact search (a small scope)', undefined], ['the index path (every scope "large")', 0]] as const) {
t.test(`a small org beside 4000 nearer passages gets its true top_k: ${path}`, async (t) => {
  const w = await bulkWorld(t, { config: exactScanMax === undefined ? {} : { KNOWLEDGE_EXACT_SCAN_MAX: exactScanMax } });
  t.equal((await w.put('notes/acm', { chunks: pages(...Array.from({ length: 12 }, (_, i) => `library note ${i} of acm`)) })).statusCode, 201);
  await w.asOfficer('PUT', '/api/dashboard/acm/knowledge/settings', { mode: 'vector', max_distance: 2 });

  const res = (await w.search({ query: 'library note', top_k: 10 })).json();
  t.equal(res.dense, true);
  t.equal(res.results.length, 10, 'ten of acm\'s passages, though 4000 nearer ones belong to beta');
  t.ok(res.results.every((r: { source_key: string }) => r.source_key === 'notes/acm'));
  // The true top 10: every passage of acm ordered by cosine distance.
  const truth = await w.sql<{ id: string }>(`select id from knowledge_chunks where organization_id = ? order by (embedding <=> ?::vector) + 0, id limit 10`, [w.org.id, queryVector]);
  t.same(res.results.map((r: { chunk_id: number }) => r.chunk_id), truth.map((r) => Number(r.id)), 'in the order of true distance');

  // The index path's query shape takes the HNSW index on the org's handle: with sorts off (as the search sets them)
  // nothing else orders. Here its iterative scan ends at pgvector's memory cap before reaching acm's far rows: on
  // the index path the search above filled its top_k through the exact search.
  const onIndex = (iterative: 'relaxed_order' | 'off') => orgDb(w.quad.emFor(w.org.id)).transaction(async (db) => {
    await db.run`set local enable_sort = off`;
    await db.run`select set_config('hnsw.iterative_scan', ${iterative}, true), set_config('hnsw.ef_search', '40', true)`;
    const statement = sql`select c.id from knowledge_chunks c
      where c.embedding is not null and c.embedding_model = 'fake-1' and (${sql.join(searchScope(db), sql` or `)})
      order by c.embedding <=> ${queryVector}::vector limit 10`;
    return { plan: await planOf(db, statement), rows: (await db.query(statement)).length };
  });
  const relaxed = await onIndex('relaxed_order');
  t.match(relaxed.plan, /knowledge_chunks_embedding/, 'the HNSW index');
  t.ok((await onIndex('off')).rows < 10, 'a filtered scan without iterative scans comes back short');
});
}

t.test('under row-level security each part of the scope takes its index; a text condition could take none', async (t) => {
  const w = await bulkWorld(t);
  const acm = orgDb(w.quad.emFor(w.org.id));
  const indexed = (db: OrgDb, statement: SqlFragment) => db.transaction(async (tx) => {
    // Only whether an index can be taken is asked: a table of a few thousand rows would be scanned whole anyway.
    await tx.run`set local enable_seqscan = off`;
    return planOf(tx, statement);
  });
  const exactPart = (part: SqlFragment) => sql`select c.id, c.embedding_bits <~> binary_quantize(${queryVector}::vector) as hamming
    from knowledge_chunks c where c.embedding is not null and c.embedding_model = 'fake-1' and ${part} order by hamming limit 100`;
  const [own, others, shared] = searchScope(acm, ['campus']);
  t.match(await indexed(acm, exactPart(own!)), /knowledge_chunks_org_model/, 'the org\'s own passages');
  t.match(await indexed(acm, exactPart(others!)), /knowledge_chunks_public_model/, 'other orgs\' public ones');
  t.match(await indexed(acm, exactPart(shared!)), /knowledge_chunks_shared_model/, 'subscribed shared pages');

  // `@@` is not leakproof, so PostgreSQL tests it only after the policies, row by row: no GIN index under them.
  const words = `select c.id from knowledge_chunks c where c.tsv @@ websearch_to_tsquery('english', '17') and c.organization_id = ${w.beta.id}`;
  const planAs = (em: EntityManager) => em.transactional(async (tx) => {
    await tx.execute('set local enable_seqscan = off');
    return (await tx.execute<{ 'QUERY PLAN': string }[]>(`explain ${words}`)).map((r) => r['QUERY PLAN']).join('\n');
  });
  t.notMatch(await planAs(w.quad.emFor(w.beta.id)), /knowledge_chunks_tsv/, 'on the org\'s handle, no GIN index');
  t.match(await planAs(w.quad.orm.em.fork()), /knowledge_chunks_tsv/, 'as the tables\' owner (knowledge_text_matches), the GIN index');
});
