// POST /api/knowledge/search and the tool knowledge.search on the fake embedder (bag-of-words vectors, so the
// vector ranking is known): the three modes, reciprocal rank fusion's order and scores, max_distance, summaries
// that outrank their rows, windows, model mismatch, the caller's own vector, public sources of another org (found
// while public, gone once private; the text matches' function shows an org only what the policies would), and
// the embedder failing or the daily limit reached (text only, dense false, never an error).
import t from 'tap';
import type { EntityManager } from '@quad/core';
import { bearer, cosine, fakeEmbedding } from '@quad/core/testing';
import { pages, startKnowledgeWorld } from './world.js';

const Q = 'library parking';
const distance = (a: string, b: string) => 1 - cosine(fakeEmbedding(a), fakeEmbedding(b));
type Result = { chunk_id: number; source_key: string; content: string; score: number; public: boolean; category: string };

t.test('search', async (t) => {
  const w = await startKnowledgeWorld(t);
  const { quad } = w;
  const put = async (key: string, body: Record<string, unknown>, token?: string) => {
    const res = await w.put(key, body, token);
    if (res.statusCode !== 201) throw new Error(`${key}: ${res.statusCode} ${res.body}`);
  };
  const find = async (body: Record<string, unknown>, token?: string) => {
    const res = await w.search(body, token);
    t.equal(res.statusCode, 200, `search ${JSON.stringify(body).slice(0, 60)}`);
    return res.json() as { results: Result[]; dense: boolean; mode: string };
  };
  const contents = (r: { results: Result[] }) => r.results.map((x) => x.content);
  const settings = async (body: Record<string, unknown>) => {
    const res = await w.asOfficer('PUT', '/api/dashboard/acm/knowledge/settings', body);
    if (res.statusCode !== 200) throw new Error(`settings: ${res.statusCode} ${res.body}`);
  };

  // Distances the fake gives (checked, so a hash collision of the fake fails here, not below).
  const A = 'library parking garage';
  const B = 'library hours';
  const C = 'parking permits cost money';
  const D = 'library rules apply to everyone and visitors must always use the parking lot';
  t.ok(distance(Q, A) < distance(Q, B) && distance(Q, B) < 0.6 && distance(Q, C) > 0.6 && distance(Q, C) < 0.7, 'the fake\'s distances');
  await put('campus/a', { category: 'campus', chunks: pages(A) });
  await put('campus/b', { category: 'campus', chunks: pages(B) });
  await put('campus/c', { category: 'campus', chunks: pages(C) });
  // D's vectors come from another model: found by text only.
  await put('campus/d', { category: 'campus', embedding_model: 'other-model', chunks: [{ ordinal: 0, content: D, embedding: fakeEmbedding(D) }] });
  await put('campus/gym', { category: 'campus', chunks: pages('The gym closes at midnight') });

  t.test('hybrid: reciprocal rank fusion of both lists, far vectors dropped, other models by text only', async (t) => {
    const r = await find({ query: Q, category: 'campus' });
    t.equal(r.mode, 'hybrid');
    t.equal(r.dense, true);
    // vector: A (1), B (2); C is farther than 0.6; D is another model. text (both words): A (1, adjacent), D (2).
    t.same(contents(r), [A, B, D], 'A in both lists first, then B and D (one list each, rank 2: by id)');
    t.ok(Math.abs(r.results[0].score - (1 / 61 + 1 / 61)) < 1e-9, 'A: 1/(60+1) twice');
    t.ok(Math.abs(r.results[1].score - 1 / 62) < 1e-9, 'B: 1/(60+2)');
    t.ok(Math.abs(r.results[2].score - 1 / 62) < 1e-9, 'D: 1/(60+2)');
    t.match(r.results[0], { source_key: 'campus/a', category: 'campus', public: false, fetched_at: String });
    t.equal(w.fake.requests.at(-1)!.input[0], Q, 'the query was embedded');

    await settings({ rrf_k: 1, max_distance: 0.7 });
    const wide = await find({ query: Q, category: 'campus' });
    t.same(contents(wide), [A, B, D, C], 'max_distance 0.7 lets C in (vector rank 3)');
    t.ok(Math.abs(wide.results[0].score - 1) < 1e-9, 'rrf_k 1: A scores 1/2 + 1/2');
    t.ok(Math.abs(wide.results[3].score - 1 / 4) < 1e-9, 'C: 1/(1+3)');
    await settings({ rrf_k: null, max_distance: null });
  });

  t.test('mode text: no query embedding, dense false', async (t) => {
    await settings({ mode: 'text' });
    const requests = w.fake.requests.length;
    const r = await find({ query: Q, category: 'campus' });
    t.equal(r.dense, false);
    t.equal(r.mode, 'text');
    t.same(contents(r), [A, D], 'both words, tightest first');
    t.equal(w.fake.requests.length, requests, 'nothing embedded');
  });

  t.test('mode vector: the vector list alone, this model only', async (t) => {
    await settings({ mode: 'vector' });
    const r = await find({ query: Q, category: 'campus' });
    t.equal(r.dense, true);
    t.same(contents(r), [A, B], 'D (another model) and C (too far) are left out');
    t.ok(Math.abs(r.results[1].score - 1 / 62) < 1e-9);
  });

  t.test('the caller\'s own vector searches passages of its model', async (t) => {
    const requests = w.fake.requests.length;
    const r = await find({ query: 'anything', category: 'campus', embedding: fakeEmbedding(D), embedding_model: 'other-model' });
    t.equal(r.dense, true);
    t.same(contents(r), [D], 'only D has vectors of other-model');
    t.equal(w.fake.requests.length, requests, 'nothing embedded');
    const bad = await w.search({ query: 'x', embedding: [1, 2] });
    t.equal(bad.statusCode, 400);
    t.equal(bad.json().reason, 'bad_embedding');
    const noModel = await w.search({ query: 'x', embedding: fakeEmbedding('x') });
    t.equal(noModel.json().reason, 'embedding_model_required');
    await settings({ mode: null });
  });

  t.test('the embedder failing: text only, dense false, no error', async (t) => {
    w.fake.failNext(500);
    const r = await find({ query: Q, category: 'campus' });
    t.equal(r.dense, false);
    t.same(contents(r), [A, D]);
    w.fake.failNext(401);
    t.equal((await find({ query: Q, category: 'campus' })).dense, false, 'a refused key too');
    t.equal((await find({ query: Q, category: 'campus' })).dense, true, 'the next search embeds again');
  });

  t.test('the daily embeddings limit reached: text only', async (t) => {
    const used = await quad.services.limits.usage(quad.orm.em.fork(), w.org.id, 'knowledge.embeddings_per_day');
    await quad.services.limits.setOverrides(quad.orm.em.fork(), w.org.id, { 'knowledge.embeddings_per_day': used }, 'test');
    const requests = w.fake.requests.length;
    const r = await find({ query: Q, category: 'campus' });
    t.equal(r.dense, false);
    t.same(contents(r), [A, D]);
    t.equal(w.fake.requests.length, requests, 'the service was not called');
    await quad.services.limits.setOverrides(quad.orm.em.fork(), w.org.id, { 'knowledge.embeddings_per_day': 'default' }, 'test');
    const counted = await quad.services.limits.usage(quad.orm.em.fork(), w.org.id, 'knowledge.embeddings_per_day');
    await find({ query: Q, category: 'campus' });
    t.equal(await quad.services.limits.usage(quad.orm.em.fork(), w.org.id, 'knowledge.embeddings_per_day'), counted + 1, 'a query embedding counts one');
  });

  t.test('summaries drop the rows they outrank; rows that outrank their summary stay', async (t) => {
    await put('guide/one', {
      category: 'guide',
      chunks: [
        { ordinal: 0, level: 1, content: 'library parking overview' },
        { ordinal: 1, level: 0, parent_ordinal: 0, content: 'library parking details' },
        { ordinal: 2, level: 0, parent_ordinal: 0, content: 'bus timetable' },
      ],
    });
    const r = await find({ query: Q, category: 'guide' });
    t.same(contents(r), ['library parking overview'], 'the child ranks below its summary: dropped');

    await put('guide/two', {
      category: 'guide2',
      chunks: [
        { ordinal: 0, level: 1, content: 'campus guide overview for library users' },
        { ordinal: 1, level: 0, parent_ordinal: 0, content: 'library parking garage' },
      ],
    });
    await settings({ mode: 'vector', max_distance: 2 });
    const kept = await find({ query: Q, category: 'guide2' });
    t.same(contents(kept), ['library parking garage', 'campus guide overview for library users'], 'the row outranks its summary: both stay');
    await settings({ mode: null, max_distance: null });
  });

  t.test('window: page-text neighbours on each side, in order', async (t) => {
    await put('seq/page', {
      category: 'seq',
      chunks: [
        { ordinal: 0, content: 'alpha one' }, { ordinal: 1, content: 'bravo two' },
        { ordinal: 5, level: 1, content: 'a summary of the page' },
        { ordinal: 7, content: 'charlie library parking three' }, { ordinal: 8, content: 'delta four' }, { ordinal: 9, content: 'echo five' },
      ],
    });
    const one = await find({ query: Q, category: 'seq', window: 1 });
    t.same(contents(one), ['bravo two\ncharlie library parking three\ndelta four'], 'one page-text row each side (the summary is not page text)');
    const two = await find({ query: Q, category: 'seq', window: 2, top_k: 1 });
    t.same(contents(two), ['alpha one\nbravo two\ncharlie library parking three\ndelta four\necho five']);
    t.same(contents(await find({ query: Q, category: 'seq' })), ['charlie library parking three'], 'window 0 by default');
    await settings({ window: 1 });
    t.same(contents(await find({ query: Q, category: 'seq' })), ['bravo two\ncharlie library parking three\ndelta four'], 'the org\'s window when the caller sends none');
    await settings({ window: null });
    t.equal((await w.search({ query: Q, window: 6 })).statusCode, 400, 'window 0 to 5');
    t.equal((await w.search({ query: Q, top_k: 51 })).statusCode, 400, 'top_k 1 to 50');
    t.equal((await w.search({ query: Q, top_k: 0 })).statusCode, 400);
    t.equal((await w.search({})).statusCode, 400, 'query is required');
  });

  t.test('top_k: the caller\'s, else the org\'s', async (t) => {
    await put('many/notes', { category: 'notes', chunks: pages(...Array.from({ length: 12 }, (_, i) => `library note ${i}`)) });
    t.equal((await find({ query: 'library' })).results.length, 8, 'default 8');
    t.equal((await find({ query: 'library', top_k: 2 })).results.length, 2);
    await settings({ top_k: 3 });
    t.equal((await find({ query: 'library' })).results.length, 3);
    await settings({ top_k: null });
  });

  t.test('scope: the org\'s sources and public sources of every org, never another org\'s private ones', async (t) => {
    await quad.orm.em.fork().getConnection().execute('update organizations set publisher = true where id = ?', [w.beta.id]);
    await quad.updateOrg(w.beta.id, {});
    await put('pub/zebra', { public: true, category: 'zoo', chunks: pages('zebra crossings near the library') }, w.betaToken);
    await put('priv/zebra', { category: 'zoo', chunks: pages('zebra secrets of beta') }, w.betaToken);
    const r = await find({ query: 'zebra', category: 'zoo' });
    t.same(r.results.map((x) => [x.source_key, x.public]), [['pub/zebra', true]]);
    const own = await find({ query: 'zebra', category: 'zoo' }, w.betaToken);
    t.same(own.results.map((x) => x.source_key).sort(), ['priv/zebra', 'pub/zebra'], 'beta finds both of its own');
    // The same text made private (its version and passages follow the flag): gone from acm's search.
    t.equal((await w.put('pub/zebra', { public: false, category: 'zoo', chunks: pages('zebra crossings near the library') }, w.betaToken)).statusCode, 200);
    t.same((await find({ query: 'zebra', category: 'zoo' })).results, [], 'no longer public, no longer found');
    t.same((await find({ query: 'zebra crossings', top_k: 20, window: 1 })).results.filter((x) => x.source_key.endsWith('/zebra')), [], 'by no mode or window');
    t.equal((await w.put('pub/zebra', { public: true, category: 'zoo', chunks: pages('zebra crossings near the library') }, w.betaToken)).statusCode, 200);
    t.same((await find({ query: 'zebra', category: 'zoo' })).results.map((x) => x.source_key), ['pub/zebra'], 'public again');
  });

  // The text matches come from a function that runs as the tables' owner (migrations/0007): it must show an org only
  // what the policies would.
  t.test('knowledge_text_matches answers only what the bound org may read', async (t) => {
    const matches = async (em: EntityManager) => (await em.execute<{ key: string }[]>(
      `select s.key from knowledge_text_matches(websearch_to_tsquery('english', 'zebra'), '{}'::text[], null, 100) m
       join knowledge_chunks c using (id) join knowledge_sources s on s.id = c.source_id order by s.key`)).map((r) => r.key);
    const [privateId] = await w.sql<{ id: string }>("select c.id from knowledge_chunks c join knowledge_sources s on s.id = c.source_id where s.key = 'priv/zebra'");
    t.same(await matches(quad.emFor(w.org.id)), ['pub/zebra'], 'acm: beta\'s public passage');
    t.same(await matches(quad.emFor(w.beta.id)), ['priv/zebra', 'pub/zebra'], 'beta: both of its own');
    const unbound = await quad.serviceOrm.em.fork().execute<{ id: string }[]>(
      `select id from knowledge_text_matches(websearch_to_tsquery('english', 'zebra'), '{}'::text[], null, 100)`);
    t.same(unbound, [], 'no org bound: nothing');
    const asAcm = await quad.emFor(w.org.id).execute<{ id: string }[]>(
      `select id from knowledge_text_matches(websearch_to_tsquery('english', 'zebra secrets'), '{}'::text[], null, 100)`);
    t.notOk(asAcm.some((r) => r.id === privateId.id), 'not even the id of beta\'s private passage');
  });

  t.test('the tool knowledge.search over /api/tools/call', async (t) => {
    const res = await quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(w.readerToken), payload: { name: 'knowledge.search', arguments: { query: Q, category: 'campus' } } });
    t.equal(res.statusCode, 200);
    t.equal(res.json().ok, true);
    t.same(res.json().result.results.map((x: Result) => x.content), [A, B, D]);
    t.equal(res.json().result.dense, true);
    const listed = (await quad.api.inject({ url: '/api/tools', headers: bearer(w.readerToken) })).json().tools.map((x: { name: string }) => x.name);
    t.same(listed.sort(), ['knowledge.crawls', 'knowledge.embeddings', 'knowledge.read_source', 'knowledge.runs', 'knowledge.search']);
    const before = await w.sql('select count(*)::int as n from audit_log');
    await find({ query: Q });
    t.same(await w.sql('select count(*)::int as n from audit_log'), before, 'POST /search is not audited');
  });
});
