// Faults of the embeddings service (spec document 3, "Crawl and search behavior" and "Errors"): down (a 5xx, the
// connection refused, the connection reset) and slow (no answer within KNOWLEDGE_EMBED_TIMEOUT_MS). Each fault in
// turn: a search falls back to text and answers 200 with `dense: false`; a write that must embed (PUT a source, new or
// replacing one) answers 502 `embedder_failed` with the adapter's message and writes nothing (no source, version or
// chunk, no embeddings counted); an upload lists the embedder's message on the file and stores nothing of it. After
// the service recovers the same write succeeds and is counted. The deployment's embedder is the fake behind a flaky
// link (test/faults/flaky-link.ts), so the network itself can fail.
import t from 'tap';
import { bearer } from '@quad/core/testing';
import { pages, startKnowledgeWorld } from '../../plugins/knowledge/test/world.js';
import { startFlakyLink, type LinkMode } from './flaky-link.js';

/** Lowered from 30 s so a slow service costs this test one second per call. */
const EMBED_TIMEOUT_MS = 1000;

const link = await startFlakyLink(t);
const w = await startKnowledgeWorld(t, { config: { EMBEDDINGS_URL: link.url('/v1'), KNOWLEDGE_EMBED_TIMEOUT_MS: EMBED_TIMEOUT_MS } });
link.forwardTo(w.fake.url);
const { quad } = w;

const embeddingsUsed = () => quad.services.limits.usage(quad.orm.em.fork(), w.org.id, 'knowledge.embeddings_per_day');
/** Everything the knowledge tables hold for the org, to compare before and after a refused write. */
const stored = async () => ({
  sources: await w.sql('select id, key, title, current_version_id from knowledge_sources where organization_id = ? order by id', [w.org.id]),
  versions: await w.sql('select id, source_id, content_hash, embedding_model from knowledge_versions where organization_id = ? order by id', [w.org.id]),
  chunks: await w.sql('select id, version_id, content from knowledge_chunks where organization_id = ? order by id', [w.org.id]),
});

/** A multipart upload as a browser's FormData makes it. */
async function upload(name: string, text: string) {
  const form = new FormData();
  form.append('files', new Blob([text]), name);
  const request = new Request('http://quad.test/', { method: 'POST', body: form });
  return quad.api.inject({
    method: 'POST', url: `/api/dashboard/${w.org.prefix}/knowledge/documents`,
    headers: { ...bearer(w.officerToken), 'content-type': request.headers.get('content-type')! },
    payload: Buffer.from(await request.arrayBuffer()),
  });
}

const RULES = 'The library opens at ten and the lounge key is kept at the front desk.';
const written = await w.put('handbook/rules', { chunks: pages(RULES) });
if (written.statusCode !== 201) throw new Error(`the first source: ${written.statusCode} ${written.body}`);

interface Fault {
  name: string;
  /** How the link fails (until the next set). */
  mode: LinkMode;
  /** The adapter's message, as the 502 and the upload's file error carry it. */
  message: RegExp;
}

const where = /the embeddings service at 127\.0\.0\.1:\d+/;
const faults: Fault[] = [
  { name: 'a 500', mode: { status: 500 }, message: /500 from the embeddings service at .*: the service failed; try again later/ },
  { name: 'a 503', mode: { status: 503 }, message: /503 from the embeddings service at .*: the service failed; try again later/ },
  { name: 'the connection refused', mode: 'refuse', message: /cannot be reached \(127\.0\.0\.1:\d+ refused the connection\): check the URL/ },
  { name: 'the connection reset', mode: 'reset', message: /cannot be reached \(.*\): check the URL/ },
  { name: 'no answer in time', mode: 'hang', message: new RegExp(`did not answer within ${EMBED_TIMEOUT_MS / 1000} s; try again later`) },
];

for (const fault of faults) {
  t.test(`the embedder down or slow: ${fault.name}`, async (t) => {
    await link.set(fault.mode);
    t.teardown(() => link.set('pass'));

    // Writes first: a search counts its query embedding, a refused write counts nothing.
    const before = await stored();
    const used = await embeddingsUsed();
    // At once: a slow service costs one deadline, not three.
    const [created, replaced, uploaded] = await Promise.all([
      w.put('faults/new', { category: 'faults', chunks: pages('A new page about the spring picnic.') }),
      w.put('handbook/rules', { chunks: pages('The library now opens at nine.') }),
      upload('Picnic.txt', 'The spring picnic is on the lawn behind the library.'),
    ]);
    t.equal(created.statusCode, 502, created.body);
    t.match(created.json(), { reason: 'embedder_failed', error: /^The embeddings service failed, so nothing was written: / });
    t.match(created.json().error, fault.message);
    t.match(created.json().error, where, 'the configured host, so the operator knows which service');
    t.notMatch(created.body, /\n\s+at |Error:|undici|select |insert |knowledge_/i, 'no stack, no internals');
    t.equal(replaced.statusCode, 502, 'replacing a source fails the same way');
    t.match(replaced.json(), { reason: 'embedder_failed' });
    t.equal(uploaded.statusCode, 200, 'an upload answers per file');
    t.match(uploaded.json().files, [{ key: 'upload/picnic.txt', changed: false, passages: 0, error: fault.message }]);

    t.same(await stored(), before, 'no source, version or chunk was written or changed');
    t.equal(await embeddingsUsed(), used, 'no embedding was counted');
    t.equal((await w.get('/api/knowledge/sources/faults/new')).statusCode, 404);
    t.equal((await w.get('/api/knowledge/sources/upload/picnic.txt')).statusCode, 404);
    const [run] = await w.sql<{ error: string; changed: boolean }>(
      "select error, changed from knowledge_runs where organization_id = ? and source_key = 'upload/picnic.txt' order by id desc limit 1", [w.org.id]);
    t.match(run, { changed: false, error: fault.message }, 'the run log keeps the failed file');

    const search = await w.search({ query: 'library lounge key' });
    t.equal(search.statusCode, 200, 'a search still answers');
    t.match(search.json(), { dense: false, mode: 'hybrid' }, 'and says the vector search did not run');
    t.same(search.json().results.map((r: { source_key: string }) => r.source_key), ['handbook/rules'], 'found by text');
    t.match(search.json().results[0].content, /opens at ten/, 'the old version is the one found');
  });
}

t.test('the tool and the officer\'s test search fall back to text too', async (t) => {
  await link.set('refuse');
  t.teardown(() => link.set('pass'));
  const tool = await quad.api.inject({
    method: 'POST', url: '/api/tools/call', headers: bearer(w.readerToken),
    payload: { name: 'knowledge.search', arguments: { query: 'library lounge key' } },
  });
  t.equal(tool.statusCode, 200, tool.body);
  t.match(tool.json(), { ok: true, result: { dense: false, results: [{ source_key: 'handbook/rules' }] } });
  const preview = await w.asOfficer('POST', `/api/dashboard/${w.org.prefix}/knowledge/search`, { query: 'library lounge key' });
  t.equal(preview.statusCode, 200, preview.body);
  t.match(preview.json(), { dense: false, vector: [], text: [{ source_key: 'handbook/rules', rank: 1 }] });
});

t.test('after recovery the same writes succeed, are embedded and counted', async (t) => {
  await link.set('pass');
  const used = await embeddingsUsed();
  const created = await w.put('faults/new', { category: 'faults', chunks: pages('A new page about the spring picnic.') });
  t.equal(created.statusCode, 201, created.body);
  t.equal(created.json().current_version.embedding_model, 'fake-1', 'embedded by the deployment\'s embedder');
  const uploaded = await upload('Picnic.txt', 'The spring picnic is on the lawn behind the library.');
  t.match(uploaded.json().files, [{ key: 'upload/picnic.txt', changed: true, passages: 1, error: null }]);
  t.equal(await embeddingsUsed(), used + 2, 'one passage each');
  const search = await w.search({ query: 'spring picnic' });
  t.equal(search.json().dense, true, 'searches embed again');
  t.same(search.json().results.map((r: { source_key: string }) => r.source_key).sort(), ['faults/new', 'upload/picnic.txt']);
});
