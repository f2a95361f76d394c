// Officer routes under /api/dashboard/<org>/knowledge (settings, sources list, reader, delete), the tools
// knowledge.read_source and knowledge.embeddings over /api/tools/call, and the superadmin's publisher switch.
import t from 'tap';
import { bearer, signInOfficer } from '@quad/core/testing';
import { pages, startKnowledgeWorld } from './world.js';

const ADMIN = '999000555';

t.test('officer routes and read tools', async (t) => {
  const w = await startKnowledgeWorld(t, { config: { SYS_ADMIN: [ADMIN] } });
  const { quad } = w;
  const tool = (name: string, args: Record<string, unknown>, token = w.readerToken) =>
    quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(token), payload: { name, arguments: args } });

  t.test('routes are mounted', async (t) => {
    t.same(quad.routes('/api/dashboard/:org/knowledge'), [
      'DELETE /api/dashboard/:org/knowledge/crawls/*', 'DELETE /api/dashboard/:org/knowledge/sources/*', 'GET /api/dashboard/:org/knowledge/crawls',
      'GET /api/dashboard/:org/knowledge/runs', 'GET /api/dashboard/:org/knowledge/settings', 'GET /api/dashboard/:org/knowledge/sources',
      'GET /api/dashboard/:org/knowledge/sources/*', 'POST /api/dashboard/:org/knowledge/crawls/run', 'POST /api/dashboard/:org/knowledge/documents',
      'POST /api/dashboard/:org/knowledge/reembed',
      'POST /api/dashboard/:org/knowledge/reindex', 'POST /api/dashboard/:org/knowledge/search', 'PUT /api/dashboard/:org/knowledge/crawls/*',
      'PUT /api/dashboard/:org/knowledge/settings',
    ]);
  });

  t.test('settings: defaults, ranges, null resets, chunk_overlap at most half of chunk_chars', async (t) => {
    const read = await w.asOfficer('GET', '/api/dashboard/acm/knowledge/settings');
    t.equal(read.statusCode, 200);
    const defaults = { chunk_chars: 300, chunk_overlap: 0, mode: 'hybrid', top_k: 8, window: 0, max_distance: 0.6, rrf_k: 60 };
    t.same(read.json(), { settings: defaults, defaults, embedder: { model: 'fake-1' } });

    const set = await w.asOfficer('PUT', '/api/dashboard/acm/knowledge/settings', { chunk_chars: 1000, chunk_overlap: 500, mode: 'text', top_k: 50, window: 5, max_distance: 2, rrf_k: 1 });
    t.equal(set.statusCode, 200);
    t.same(set.json().settings, { chunk_chars: 1000, chunk_overlap: 500, mode: 'text', top_k: 50, window: 5, max_distance: 2, rrf_k: 1 });
    t.same((await w.asOfficer('GET', '/api/dashboard/acm/knowledge/settings')).json().settings.mode, 'text', 'kept');

    const outOfRange: Record<string, unknown>[] = [
      { chunk_chars: 99 }, { chunk_chars: 4001 }, { chunk_overlap: -1 }, { mode: 'fuzzy' }, { top_k: 0 }, { top_k: 51 },
      { window: 6 }, { max_distance: 0.04 }, { max_distance: 2.1 }, { rrf_k: 0 }, { rrf_k: 201 }, { chunk_chars: 1.5 }, { unknown: 1 },
    ];
    for (const body of outOfRange) t.equal((await w.asOfficer('PUT', '/api/dashboard/acm/knowledge/settings', body)).statusCode, 400, JSON.stringify(body));
    const overlap = await w.asOfficer('PUT', '/api/dashboard/acm/knowledge/settings', { chunk_chars: 800 });
    t.equal(overlap.statusCode, 400, 'chunk_chars 800 with the stored overlap 500');
    t.equal(overlap.json().reason, 'chunk_overlap_too_large');
    t.match(overlap.json().error, /400 or less/);
    t.equal((await w.asOfficer('PUT', '/api/dashboard/acm/knowledge/settings', { chunk_chars: 800, chunk_overlap: 400 })).statusCode, 200, 'both at once');

    const reset = await w.asOfficer('PUT', '/api/dashboard/acm/knowledge/settings', { chunk_chars: null, chunk_overlap: null, mode: null, top_k: null, window: null, max_distance: null, rrf_k: null });
    t.same(reset.json().settings, defaults, 'null returns each to its default');
    t.same(await w.sql("select config -> 'knowledge' as k from organizations where id = ?", [w.org.id]), [{ k: null }], 'nothing stored');
    t.equal((await quad.api.inject({ url: '/api/dashboard/acm/knowledge/settings', headers: bearer(w.acmToken) })).statusCode, 401, 'a machine token is not an officer');
  });

  t.test('the sources list says whether the org may publish', async (t) => {
    await w.put('docs/a', { title: 'A', category: 'docs', chunks: pages('one') });
    const list = await w.asOfficer('GET', '/api/dashboard/acm/knowledge/sources');
    t.equal(list.statusCode, 200);
    t.match(list.json(), { sources: [{ key: 'docs/a', title: 'A', current_version: { chunks: 1 } }], may_publish: false });
  });

  t.test('the reader: pages, summaries left out, overlap removed, chunk focus, public fallback', async (t) => {
    // 1200 page-text rows of 10 characters overlapping by 3, and a summary.
    const rows = Array.from({ length: 1200 }, (_, i) => ({ ordinal: i + 1, content: `${String(i).padStart(3, '0')}-row-${String(i).padStart(3, '0')}`.slice(-10) }));
    const chunks = [{ ordinal: 0, level: 1, content: 'summary of it all' }, ...rows.map((r, i) => ({ ...r, parent_ordinal: 0, content: i ? `${rows[i - 1].content.slice(-3)}${r.content}` : r.content }))];
    t.equal((await w.put('big/book', { title: 'Book', chunks })).statusCode, 201);
    await w.asOfficer('PUT', '/api/dashboard/acm/knowledge/settings', { chunk_chars: 100, chunk_overlap: 3 });
    // A client's own chunks were not cut with the org's overlap: read as written.
    const asWritten = (await w.asOfficer('GET', '/api/dashboard/acm/knowledge/sources/big/book')).json();
    t.same(asWritten.passages.slice(0, 2).map((p: { text: string }) => p.text), [chunks[1].content, chunks[2].content], 'client chunks: nothing stripped');
    // A version from before versions kept their overlap (null: unknown) is read with the org's setting now.
    await w.sql("update knowledge_versions v set chunk_overlap = null from knowledge_sources s where s.id = v.source_id and s.key = 'big/book'");

    const first = await w.asOfficer('GET', '/api/dashboard/acm/knowledge/sources/big/book');
    t.equal(first.statusCode, 200);
    const page = first.json();
    t.equal(page.passages.length, 500, '500 rows a page');
    t.equal(page.total, 1200, 'the summary is not page text');
    t.same([page.offset, page.next_offset, page.focus], [0, 500, null]);
    t.match(page.source, { key: 'big/book', title: 'Book', own: true });
    t.same(page.passages.slice(0, 2).map((p: { text: string }) => p.text), [rows[0].content, rows[1].content], 'overlap removed');
    const last = (await w.asOfficer('GET', '/api/dashboard/acm/knowledge/sources/big/book?offset=1000')).json();
    t.same([last.passages.length, last.next_offset], [200, null]);
    t.equal(last.passages[0].text, rows[1000].content, 'the first row of a later page loses its overlap too');

    const [target] = await w.sql<{ id: string }>("select c.id from knowledge_chunks c join knowledge_sources s on s.id = c.source_id where s.key = 'big/book' and c.ordinal = 700");
    const focused = (await w.asOfficer('GET', `/api/dashboard/acm/knowledge/sources/ignored?chunk=${target.id}`)).json();
    t.same([focused.focus, focused.offset, focused.passages[0].ordinal], [Number(target.id), 699, 700], 'the page opens at the chunk');

    // A big row: 200,000 characters end a page before 500 rows.
    const wide = Array.from({ length: 12 }, (_, i) => ({ ordinal: i, content: String(i % 10).repeat(20000) }));
    await w.put('big/wide', { chunks: wide });
    const widePage = (await w.asOfficer('GET', '/api/dashboard/acm/knowledge/sources/big/wide')).json();
    t.same([widePage.passages.length, widePage.next_offset], [10, 10], '10 rows of 20,000 characters');

    t.equal((await w.asOfficer('GET', '/api/dashboard/acm/knowledge/sources/none/such')).statusCode, 404);
    await quad.orm.em.fork().getConnection().execute('update organizations set publisher = true where id = ?', [w.beta.id]);
    await quad.updateOrg(w.beta.id, {});
    await w.put('shared/page', { public: true, title: 'Beta public', chunks: pages('public text') }, w.betaToken);
    await w.put('beta/private', { title: 'Beta private', chunks: pages('private text') }, w.betaToken);
    const shared = (await w.asOfficer('GET', '/api/dashboard/acm/knowledge/sources/shared/page')).json();
    t.match(shared.source, { key: 'shared/page', title: 'Beta public', own: false, public: true }, 'no own source of the key: the public one');
    t.same(shared.passages.map((p: { text: string }) => p.text), ['public text'], 'and its text');
    const [publicChunk] = await w.sql<{ id: string }>("select c.id from knowledge_chunks c join knowledge_sources s on s.id = c.source_id where s.key = 'shared/page'");
    const byChunk = (await w.asOfficer('GET', `/api/dashboard/acm/knowledge/sources/x?chunk=${publicChunk.id}`)).json();
    t.same([byChunk.source.key, byChunk.source.own, byChunk.focus], ['shared/page', false, Number(publicChunk.id)], 'through its chunk too');
    t.equal((await w.asOfficer('GET', '/api/dashboard/acm/knowledge/sources/beta/private')).statusCode, 404, 'another org\'s private source is not read');
    const [privateChunk] = await w.sql<{ id: string }>("select c.id from knowledge_chunks c join knowledge_sources s on s.id = c.source_id where s.key = 'beta/private'");
    t.equal((await w.asOfficer('GET', `/api/dashboard/acm/knowledge/sources/x?chunk=${privateChunk.id}`)).statusCode, 404, 'nor through its chunk');
  });

  t.test('tools: knowledge.read_source and knowledge.embeddings', async (t) => {
    const read = await tool('knowledge.read_source', { key: 'docs/a' });
    t.equal(read.statusCode, 200);
    t.same(read.json().result, { key: 'docs/a', title: 'A', url: '', own: true, text: 'one', offset: 0, next_offset: null, total: 1 });
    const next = (await tool('knowledge.read_source', { key: 'big/book', offset: 500 })).json().result;
    t.same([next.offset, next.next_offset, next.total], [500, 1000, 1200]);
    t.equal((await tool('knowledge.read_source', {})).json().reason, 'key_or_chunk_required');
    t.equal((await tool('knowledge.read_source', { key: 'beta/private' })).json().reason, 'source_not_found');

    await w.put('client/vec', { embedding_model: 'client-model', chunks: [{ ordinal: 0, content: 'x', embedding: Array(1024).fill(0.1) }] });
    const counts = (await tool('knowledge.embeddings', {})).json().result;
    const [{ n }] = await w.sql<{ n: number }>("select count(*)::int as n from knowledge_chunks where organization_id = ? and embedding_model = 'fake-1'", [w.org.id]);
    t.same(counts, { current_model: 'fake-1', models: [{ model: 'client-model', passages: 1 }, { model: 'fake-1', passages: n }], without_vector: 0 });
  });

  t.test('delete from the dashboard', async (t) => {
    const del = await w.asOfficer('DELETE', '/api/dashboard/acm/knowledge/sources/docs/a');
    t.same([del.statusCode, del.json()], [200, { deleted: 'docs/a' }]);
    t.equal((await w.asOfficer('DELETE', '/api/dashboard/acm/knowledge/sources/docs/a')).statusCode, 404);
    t.equal((await w.asOfficer('DELETE', '/api/dashboard/acm/knowledge/sources/shared/page')).statusCode, 404, 'a public source of another org is not the org\'s to delete');
    const [audit] = await w.sql<{ actor: string }>("select actor from audit_log where action = 'knowledge.source_deleted'");
    t.match(audit.actor, /^officer:/);
  });

  t.test('the superadmin\'s publisher switch', async (t) => {
    w.discord.addUser({ id: ADMIN, username: 'root' });
    const admin = (await signInOfficer(w, ADMIN)).access_token;
    const gamma = await quad.createOrg({ prefix: 'gamma', modules: { knowledge: true } });
    const token = (await quad.issueToken(gamma.id, { scopes: ['knowledge:write'] })).token;
    t.equal((await w.put('g/pub', { public: true, chunks: pages('g') }, token)).statusCode, 403);
    const on = await quad.api.inject({ method: 'PUT', url: `/api/superadmin/publishers/${gamma.id}`, headers: bearer(admin), payload: { publisher: true } });
    t.equal(on.statusCode, 200, on.body);
    t.equal((await w.put('g/pub', { public: true, chunks: pages('g') }, token)).statusCode, 201, 'a publisher now');
    await quad.api.inject({ method: 'PUT', url: `/api/superadmin/publishers/${gamma.id}`, headers: bearer(admin), payload: { publisher: false } });
    t.equal((await w.put('g/other', { public: true, chunks: pages('g') }, token)).statusCode, 403, 'and no more');
  });
});
