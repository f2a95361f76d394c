// PUT/GET/DELETE /api/knowledge/sources/<key> and the list: every validation of the spec with its status, versions
// (201 changed, 200 unchanged, metadata-only), the one-transaction replace, embedding on write (and the embedder
// failing: 502, nothing written), limits, and publishers across two orgs.
import t from 'tap';
import { bearer, fakeEmbedding } from '@quad/core/testing';
import { pages, startKnowledgeWorld } from './world.js';

const vec = (text: string) => fakeEmbedding(text);

t.test('sources', async (t) => {
  const w = await startKnowledgeWorld(t);
  const { quad } = w;

  t.test('routes are mounted', async (t) => {
    t.same(quad.routes('/api/knowledge'), [
      'DELETE /api/knowledge/sources/*', 'GET /api/knowledge/sources', 'GET /api/knowledge/sources/*', 'POST /api/knowledge/crawls/run',
      'POST /api/knowledge/search', 'PUT /api/knowledge/crawls/*', 'PUT /api/knowledge/sources/*',
    ]);
  });

  t.test('validation: every rule answers 400 with a reason and the field', async (t) => {
    const bad = async (key: string, body: Record<string, unknown>, reason: string | RegExp, field?: string) => {
      const res = await w.put(key, body);
      t.equal(res.statusCode, 400, `${JSON.stringify(body).slice(0, 80)} -> 400`);
      if (typeof reason === 'string') t.equal(res.json().reason, reason);
      else t.match(res.json().error, reason);
      if (field) t.equal(res.json().field, field);
    };
    await bad('a%20b', { chunks: pages('x') }, 'bad_key', 'params.key');
    await bad('x'.repeat(256), { chunks: pages('x') }, 'bad_key');
    await bad('a%3Fb', { chunks: pages('x') }, 'bad_key');
    await bad('ok', { chunks: Array.from({ length: 5001 }, (_, i) => ({ ordinal: i, content: 'x' })) }, /5000/);
    await bad('ok', { chunks: [{ ordinal: 0, content: 'x'.repeat(20001) }] }, /20000/);
    await bad('ok', { chunks: [{ ordinal: 0, content: 'a' }, { ordinal: 0, content: 'b' }] }, 'duplicate_ordinal', 'body.chunks[1].ordinal');
    await bad('ok', { embedding_model: 'm', chunks: [{ ordinal: 0, content: 'a', embedding: vec('a') }, { ordinal: 1, content: 'b' }] }, 'embeddings_all_or_none');
    await bad('ok', { embedding_model: 'm', chunks: [{ ordinal: 0, content: 'a', embedding: [1, 2, 3] }] }, 'bad_embedding', 'body.chunks[0].embedding');
    await bad('ok', { embedding_model: 'm', chunks: [{ ordinal: 0, content: 'a', embedding: [...vec('a'), 0] }] }, 'bad_embedding');
    await bad('ok', { chunks: [{ ordinal: 0, content: 'a', embedding: vec('a') }] }, 'embedding_model_required', 'body.embedding_model');
    await bad('ok', { chunks: [{ ordinal: 0, content: 'a', level: -1 }] }, /level/);
    await bad('ok', { chunks: [{ ordinal: 0, content: 'a', parent_ordinal: 7 }] }, 'bad_parent', 'body.chunks[0].parent_ordinal');
    await bad('ok', { chunks: [{ ordinal: 0, content: 's', level: 1 }, { ordinal: 1, content: 'a', level: 1, parent_ordinal: 0 }] }, 'bad_parent');
    await bad('ok', { title: 'no chunks, no hash' }, 'chunks_required');
    // The seed's contract (issue 42): an empty list is a client bug, not a source with nothing in it.
    await bad('ok', { title: 'Empty', chunks: [] }, 'no_chunks', 'body.chunks');
    await bad('ok', { content_hash: 'h', chunks: [] }, 'no_chunks', 'body.chunks');
    t.same(await w.sql('select count(*)::int as n from knowledge_sources'), [{ n: 0 }], 'nothing was written');
  });

  t.test('auth: a token, the scope, the module', async (t) => {
    t.equal((await quad.api.inject({ method: 'PUT', url: '/api/knowledge/sources/x', payload: { chunks: [] } })).statusCode, 401);
    t.equal((await w.put('x', { chunks: [] }, w.readerToken)).statusCode, 403, 'knowledge:read cannot write');
    t.equal((await w.get('/api/knowledge/sources', w.readerToken)).statusCode, 200, 'knowledge:read lists');
    t.equal((await quad.api.inject({ url: '/api/knowledge/sources', headers: bearer(w.officerToken) })).statusCode, 401, 'an officer token is not a machine token');
    await quad.updateOrg(w.beta.id, { modules: { knowledge: false } });
    const off = await w.get('/api/knowledge/sources', w.betaToken);
    t.equal(off.statusCode, 404);
    t.equal(off.json().reason, 'module_off');
    await quad.updateOrg(w.beta.id, { modules: { knowledge: true } });
  });

  t.test('versions: 201 when content changes, 200 when not, metadata only on an equal hash', async (t) => {
    const body = { title: 'Handbook', url: 'https://acm.example/handbook', category: 'docs', chunks: pages('The library opens at nine.', 'Dues are ten dollars.') };
    const first = await w.put('handbook/rules', body);
    t.equal(first.statusCode, 201);
    const v1 = first.json();
    t.match(v1, { key: 'handbook/rules', title: 'Handbook', category: 'docs', public: false, crawl: null, current_version: { chunks: 2, embedding_model: 'fake-1' } });
    t.match(v1.current_version.content_hash, /^sha256:[0-9a-f]{64}$/, 'the hash is computed when missing');
    t.same(w.fake.requests.at(-1)!.input, ['The library opens at nine.', 'Dues are ten dollars.'], 'passages embedded as they are');

    const again = await w.put('handbook/rules', { ...body, title: 'Handbook 2', chunks: [...body.chunks].reverse() });
    t.equal(again.statusCode, 200, 'the same chunks in another order: unchanged');
    t.equal(again.json().current_version.id, v1.current_version.id, 'same version');
    t.equal(again.json().title, 'Handbook 2', 'title changed');
    const requests = w.fake.requests.length;

    const meta = await w.put('handbook/rules', { content_hash: v1.current_version.content_hash, category: 'rules', url: 'https://acm.example/r' });
    t.equal(meta.statusCode, 200, 'hash only: metadata-only update');
    t.match(meta.json(), { category: 'rules', url: 'https://acm.example/r', current_version: { id: v1.current_version.id } });
    t.equal(w.fake.requests.length, requests, 'nothing embedded for an unchanged source');

    // An empty list is refused even with the current hash: leaving chunks out is the metadata-only form.
    const empty = await w.put('handbook/rules', { content_hash: v1.current_version.content_hash, title: 'Emptied', chunks: [] });
    t.equal(empty.statusCode, 400, 'empty chunks with the current hash');
    t.match(empty.json(), { reason: 'no_chunks', field: 'body.chunks' });
    const kept = (await w.get('/api/knowledge/sources/handbook/rules')).json();
    t.match(kept, { title: 'Handbook 2', category: 'rules', current_version: { id: v1.current_version.id, chunks: 2 } }, 'nothing written, not even the title');

    const changed = await w.put('handbook/rules', { chunks: pages('The library opens at ten.') });
    t.equal(changed.statusCode, 201);
    t.not(changed.json().current_version.id, v1.current_version.id);
    t.same(await w.sql('select count(*)::int as v from knowledge_versions'), [{ v: 1 }], 'the old version is gone');
    const chunks = await w.sql<{ content: string; embedding_model: string; has: boolean }>('select content, embedding_model, embedding is not null as has from knowledge_chunks');
    t.same(chunks, [{ content: 'The library opens at ten.', embedding_model: 'fake-1', has: true }], 'its chunks replaced the old ones');

    const got = await w.get('/api/knowledge/sources/handbook/rules');
    t.equal(got.statusCode, 200);
    t.match(got.json(), { key: 'handbook/rules', category: 'rules', chunks: [{ ordinal: 0, level: 0, parent_ordinal: null, content: 'The library opens at ten.' }] });
    t.notOk('embedding' in got.json().chunks[0], 'no vectors in the answer');

    const sent = await w.put('own/hash', { content_hash: 'abc', chunks: pages('x') });
    t.equal(sent.json().current_version.content_hash, 'abc', 'a sent hash is kept');
    t.equal((await w.put('own/hash', { content_hash: 'abc', chunks: pages('something else entirely') })).statusCode, 200, 'the writer\'s hash decides');
  });

  t.test('list, category filter, delete; only the caller\'s org', async (t) => {
    await w.put('faq/dues', { category: 'faq', chunks: pages('Dues are paid in September.') });
    await w.put('beta/only', { category: 'faq', chunks: pages('Beta secrets.') }, w.betaToken);
    const all = (await w.get('/api/knowledge/sources')).json().sources.map((s: { key: string }) => s.key);
    t.same(all, ['faq/dues', 'handbook/rules', 'own/hash']);
    t.same((await w.get('/api/knowledge/sources?category=faq')).json().sources.map((s: { key: string }) => s.key), ['faq/dues']);
    t.equal((await w.get('/api/knowledge/sources/beta/only')).statusCode, 404, 'another org\'s source is not found');
    t.equal((await quad.api.inject({ method: 'DELETE', url: '/api/knowledge/sources/beta/only', headers: bearer(w.acmToken) })).statusCode, 404, 'nor deleted');
    const del = await quad.api.inject({ method: 'DELETE', url: '/api/knowledge/sources/own/hash', headers: bearer(w.acmToken) });
    t.equal(del.statusCode, 200);
    t.same(del.json(), { deleted: 'own/hash' });
    t.equal((await w.get('/api/knowledge/sources/own/hash')).statusCode, 404);
    t.same(await w.sql("select count(*)::int as n from knowledge_chunks c join knowledge_sources s on s.id = c.source_id where s.key = 'beta/only'"), [{ n: 1 }], 'beta keeps its rows');
  });

  t.test('chunks with their own vectors keep them and their model', async (t) => {
    const requests = w.fake.requests.length;
    const res = await w.put('vec/own', { embedding_model: 'client-model', chunks: [{ ordinal: 0, content: 'alpha', embedding: vec('alpha') }] });
    t.equal(res.statusCode, 201);
    t.equal(res.json().current_version.embedding_model, 'client-model');
    t.equal(w.fake.requests.length, requests, 'nothing embedded');
    t.same(await w.sql("select embedding_model from knowledge_chunks c join knowledge_sources s on s.id = c.source_id where s.key = 'vec/own'"), [{ embedding_model: 'client-model' }]);
  });

  t.test('the embedder failing on a write: 502 and nothing written', async (t) => {
    const before = await w.sql('select id, current_version_id from knowledge_sources order by id');
    w.fake.failNext(500);
    const res = await w.put('fails/new', { chunks: pages('never stored') });
    t.equal(res.statusCode, 502);
    t.equal(res.json().reason, 'embedder_failed');
    t.match(res.json().error, /500 from the embeddings service/);
    w.fake.failNext(401);
    const replace = await w.put('handbook/rules', { chunks: pages('a new text that fails') });
    t.equal(replace.statusCode, 502);
    t.match(replace.json().error, /check the key/);
    t.same(await w.sql('select id, current_version_id from knowledge_sources order by id'), before, 'no source, version or chunk changed');
    t.same(await w.sql("select content from knowledge_chunks c join knowledge_sources s on s.id = c.source_id where s.key = 'handbook/rules'"), [{ content: 'The library opens at ten.' }]);
  });

  t.test('one transaction: a replace that fails after the delete leaves the old version', async (t) => {
    // knowledge.passages at its use now: the new version's chunks do not fit after the old one is deleted.
    const [{ n }] = await w.sql<{ n: number }>('select count(*)::int as n from knowledge_chunks where organization_id = ?', [w.org.id]);
    await quad.services.limits.setOverrides(quad.orm.em.fork(), w.org.id, { 'knowledge.passages': n }, 'test');
    const res = await w.put('handbook/rules', { chunks: pages('one', 'two') });
    t.equal(res.statusCode, 409);
    t.equal(res.json().reason, 'limit_reached');
    t.same(await w.sql("select content from knowledge_chunks c join knowledge_sources s on s.id = c.source_id where s.key = 'handbook/rules'"), [{ content: 'The library opens at ten.' }], 'the old chunks are still there');
    t.equal((await w.put('handbook/rules', { chunks: pages('uno') })).statusCode, 201, 'a replace of the same size fits');
    await quad.services.limits.setOverrides(quad.orm.em.fork(), w.org.id, { 'knowledge.passages': 'default' }, 'test');
  });

  t.test('limits: knowledge.sources (409) and knowledge.embeddings_per_day (429)', async (t) => {
    const [{ n }] = await w.sql<{ n: number }>('select count(*)::int as n from knowledge_sources where organization_id = ?', [w.org.id]);
    await quad.services.limits.setOverrides(quad.orm.em.fork(), w.org.id, { 'knowledge.sources': n }, 'test');
    const full = await w.put('one/more', { chunks: pages('x') });
    t.equal(full.statusCode, 409);
    t.equal(full.json().reason, 'limit_reached');
    t.equal((await w.put('faq/dues', { chunks: pages('Dues are paid in October.') })).statusCode, 201, 'replacing a source is not a new one');
    await quad.services.limits.setOverrides(quad.orm.em.fork(), w.org.id, { 'knowledge.sources': 'default' }, 'test');

    const used = await quad.services.limits.usage(quad.orm.em.fork(), w.org.id, 'knowledge.embeddings_per_day');
    t.ok(used >= 5, `texts embedded today are counted (${used})`);
    await quad.services.limits.setOverrides(quad.orm.em.fork(), w.org.id, { 'knowledge.embeddings_per_day': used + 1 }, 'test');
    const requests = w.fake.requests.length;
    const over = await w.put('two/texts', { chunks: pages('first', 'second') });
    t.equal(over.statusCode, 429);
    t.equal(over.json().reason, 'rate_limited');
    t.equal(w.fake.requests.length, requests, 'refused before the service was called');
    t.equal((await w.put('one/text', { chunks: pages('only one') })).statusCode, 201, 'one more fits');
    t.equal(await quad.services.limits.usage(quad.orm.em.fork(), w.org.id, 'knowledge.embeddings_per_day'), used + 1);
    await quad.services.limits.setOverrides(quad.orm.em.fork(), w.org.id, { 'knowledge.embeddings_per_day': 'default' }, 'test');
  });

  t.test('publishers: only they write public sources', async (t) => {
    const refused = await w.put('pub/page', { public: true, chunks: pages('Public words') }, w.betaToken);
    t.equal(refused.statusCode, 403);
    t.equal(refused.json().reason, 'not_publisher');
    t.match(refused.json().error, /publisher/);
    await quad.updateOrg(w.beta.id, {});
    await quad.orm.em.fork().getConnection().execute('update organizations set publisher = true where id = ?', [w.beta.id]);
    await quad.updateOrg(w.beta.id, {});
    t.equal((await w.put('pub/page', { public: true, chunks: pages('Public words') }, w.betaToken)).statusCode, 201, 'the superadmin\'s switch');
    t.equal((await w.get('/api/knowledge/sources/pub/page')).statusCode, 404, 'acm does not list or read beta\'s public source on the machine API');
  });

  // Row-level security shows acm beta's public rows: everything but the search and the reader must still leave them out.
  t.test('another org\'s public source is in no list, count or write of the org', async (t) => {
    t.notOk((await w.get('/api/knowledge/sources')).json().sources.some((s: { key: string }) => s.key === 'pub/page'), 'not in acm\'s list');
    t.equal((await quad.api.inject({ method: 'DELETE', url: '/api/knowledge/sources/pub/page', headers: bearer(w.acmToken) })).statusCode, 404, 'nor deleted by acm');
    const [{ n }] = await w.sql<{ n: number }>('select count(*)::int as n from knowledge_chunks where organization_id = ?', [w.org.id]);
    t.equal(await quad.services.limits.usage(quad.emFor(w.org.id), w.org.id, 'knowledge.passages'), n, 'acm\'s passages count only its own');
    t.equal((await w.put('pub/page', { chunks: pages('Acm words') })).statusCode, 201, 'acm writes a source of the same key, its own');
    t.same(await w.sql("select organization_id, public from knowledge_sources where key = 'pub/page' order by organization_id"),
      [{ organization_id: w.org.id, public: false }, { organization_id: w.beta.id, public: true }], 'beta\'s is untouched');
  });

  t.test('versions and chunks carry their source\'s public flag, in the same transaction as it changes', async (t) => {
    const flags = async () => w.sql<{ table: string; public: boolean }>(`
      select 'source' as table, s.public from knowledge_sources s where s.organization_id = ? and s.key = 'pub/page'
      union all select 'version', v.public from knowledge_versions v join knowledge_sources s on s.id = v.source_id where s.organization_id = ? and s.key = 'pub/page'
      union all select 'chunk', c.public from knowledge_chunks c join knowledge_sources s on s.id = c.source_id where s.organization_id = ? and s.key = 'pub/page'`,
    [w.beta.id, w.beta.id, w.beta.id]);
    const all = (value: boolean) => [{ table: 'source', public: value }, { table: 'version', public: value }, { table: 'chunk', public: value }];
    t.same(await flags(), all(true), 'written public');
    t.equal((await w.put('pub/page', { public: false, chunks: pages('Public words') }, w.betaToken)).statusCode, 200, 'the same text, made private');
    t.same(await flags(), all(false), 'the version and chunks follow');
    t.equal((await w.put('pub/page', { public: true, chunks: pages('Public words, changed') }, w.betaToken)).statusCode, 201, 'new text, public again');
    t.same(await flags(), all(true), 'the new version and chunks are written public');
    const [chunk] = await w.sql<{ id: string }>("select c.id from knowledge_chunks c join knowledge_sources s on s.id = c.source_id where s.key = 'pub/page' and s.public");
    await t.rejects(w.sql('update knowledge_chunks set public = false where id = ?', [chunk.id]), { code: '23503' }, 'a copy that differs from its source is refused');
  });
});

t.test('KNOWLEDGE_PUBLISHERS names publisher orgs; no embedder: text only', async (t) => {
  const w = await startKnowledgeWorld(t, { embedder: false, config: { KNOWLEDGE_PUBLISHERS: 'zeta, ACM' } });
  const res = await w.put('pub/acm', { public: true, chunks: pages('Open to all') });
  t.equal(res.statusCode, 201);
  t.equal(res.json().public, true);
  t.equal(res.json().current_version.embedding_model, null, 'no embedder: no vectors');
  t.equal(w.fake.requests.length, 0);
  t.equal((await w.put('pub/beta', { public: true, chunks: pages('x') }, w.betaToken)).statusCode, 403);
  t.same(await w.sql('select embedding_model, embedding is null as none from knowledge_chunks'), [{ embedding_model: null, none: true }]);
});

t.test('knowledge.sources under concurrency: 20 parallel creates against room for 10 make exactly 10', async (t) => {
  const w = await startKnowledgeWorld(t, { embedder: false });
  await w.quad.services.limits.setOverrides(w.quad.orm.em.fork(), w.org.id, { 'knowledge.sources': 10 }, 'test');
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => w.put(`race/${i}`, { chunks: pages(`text ${i}`) })));
  const codes = answers.map((a) => a.statusCode).sort();
  t.same(codes, [...Array(10).fill(201), ...Array(10).fill(409)]);
  t.same(await w.sql('select count(*)::int as n from knowledge_sources where organization_id = ?', [w.org.id]), [{ n: 10 }]);
  const made = `race/${answers.findIndex((a) => a.statusCode === 201)}`;
  const same = await Promise.all(Array.from({ length: 5 }, (_, i) => w.put(made, { chunks: pages(`new text ${i}`) })));
  t.ok(same.every((a) => a.statusCode === 201 || a.statusCode === 200), 'parallel replaces of one source all succeed');
  t.same(await w.sql('select count(*)::int as v from knowledge_versions v join knowledge_sources s on s.id = v.source_id where s.key = ?', [made]), [{ v: 1 }], 'one version remains');
});
