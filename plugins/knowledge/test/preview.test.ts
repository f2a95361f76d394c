// The officer's test search, POST /api/dashboard/<org>/knowledge/search: the same results as the machine API's
// search, and the two lists the fusion merged (vector ranks and distances, text ranks); a mode in place of the
// org's; the query embedding counts against knowledge.embeddings_per_day; not audited; officers only.
import t from 'tap';
import { bearer, cosine, fakeEmbedding } from '@quad/core/testing';
import { pages, startKnowledgeWorld } from './world.js';

const Q = 'library parking';
const A = 'library parking garage';
const B = 'library hours';
const C = 'parking permits cost money';
const distance = (a: string, b: string) => 1 - cosine(fakeEmbedding(a), fakeEmbedding(b));

interface Hit { chunk_id: number; rank: number; source_key: string; ordinal: number; distance?: number }
interface Preview { results: { chunk_id: number; source_key: string; score: number }[]; dense: boolean; mode: string; vector: Hit[]; text: Hit[] }

t.test('test search', async (t) => {
  const w = await startKnowledgeWorld(t);
  const { quad } = w;
  for (const [key, text] of [['campus/a', A], ['campus/b', B], ['campus/c', C]]) {
    const res = await w.put(key!, { category: 'campus', chunks: pages(text!) });
    t.equal(res.statusCode, 201, key);
  }
  const preview = (body: Record<string, unknown>, token = w.officerToken, org = 'acm') =>
    quad.api.inject({ method: 'POST', url: `/api/dashboard/${org}/knowledge/search`, headers: bearer(token), payload: body });
  const usage = () => quad.services.limits.usage(quad.orm.em.fork(), w.org.id, 'knowledge.embeddings_per_day');

  t.test('the route is mounted', async (t) => {
    t.same(quad.routes('/api/dashboard/:org/knowledge/search'), ['POST /api/dashboard/:org/knowledge/search']);
  });

  t.test('both lists and the fused results, as the machine search answers them', async (t) => {
    const before = await usage();
    const res = await preview({ query: Q, category: 'campus' });
    t.equal(res.statusCode, 200, res.body);
    const r = res.json() as Preview;
    t.equal(await usage(), before + 1, 'the query embedding counts');
    t.equal(r.dense, true);
    // Vector: A then B (C is farther than max_distance 0.6); text (both words): A only.
    t.ok(distance(Q, C) > 0.6, 'the fake puts C beyond max_distance');
    t.same(r.vector.map((h) => [h.source_key, h.rank, h.ordinal]), [['campus/a', 1, 0], ['campus/b', 2, 0]]);
    t.ok(Math.abs(r.vector[0]!.distance! - distance(Q, A)) < 1e-6, 'the distance is the cosine distance');
    t.same(r.text.map((h) => [h.source_key, h.rank]), [['campus/a', 1]]);
    t.same(r.results.map((x) => x.source_key), ['campus/a', 'campus/b'], 'fused: A (both lists), then B');
    const machine = (await w.search({ query: Q, category: 'campus' })).json();
    t.same(r.results, machine.results, 'the machine API answers the same results');
  });

  t.test('a mode in place of the org\'s', async (t) => {
    const text = (await preview({ query: Q, mode: 'text' })).json() as Preview;
    t.equal(text.mode, 'text');
    t.equal(text.dense, false);
    t.same(text.vector, []);
    t.same(text.results.map((x) => x.source_key), ['campus/a']);
    const vector = (await preview({ query: Q, mode: 'vector', top_k: 1 })).json() as Preview;
    t.equal(vector.mode, 'vector');
    t.same(vector.text, [], 'mode vector skips the text search');
    t.same(vector.results.map((x) => x.source_key), ['campus/a'], 'top_k 1');
    const stored = await w.asOfficer('GET', '/api/dashboard/acm/knowledge/settings');
    t.equal(stored.json().settings.mode, 'hybrid', 'the org\'s setting is unchanged');
  });

  t.test('not audited; officers only; bad bodies are 400', async (t) => {
    const audited = async () => (await w.sql<{ n: number }>('select count(*)::int as n from audit_log'))[0]!.n;
    const before = await audited();
    t.equal((await preview({ query: Q })).statusCode, 200);
    t.equal(await audited(), before, 'no audit row');
    t.equal((await preview({ query: Q }, w.acmToken)).statusCode, 401, 'a machine token is not an officer');
    t.equal((await preview({ query: '' })).statusCode, 400);
    t.equal((await preview({ query: Q, mode: 'fast' })).statusCode, 400);
    t.equal((await preview({ query: Q, top_k: 51 })).statusCode, 400);
  });
});
