// The embeddings adapter against the fake service over real HTTP on loopback: order, batching, query prefix, keys
// (own, gateway default), every failure as an EmbedderFailed an officer can act on, and the org's own service from
// its integration secrets in the real secret store.
import t, { type Test } from 'tap';
import { defineModule } from '@quad/core';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, cosine, fakeEmbedding, startFakeEmbeddings, allowOutside } from '@quad/core/testing';
import {
  createEmbedder, defaultEmbedder, EMBED_BATCH_SIZE, EmbedderFailed, embedderForOrg, EMBEDDING_DIMENSIONS, EMBEDDINGS_SECRETS,
  isGatewayUrl, type Embedder,
} from '../embeddings.js';

const KEY = 'sk-test-0123456789abcdef';

// createEmbedder's URLs are an org's (checked by the safe fetcher): the fakes listen on the test's "outside" address.
allowOutside(t);

async function failure(t: Test, p: Promise<unknown>): Promise<EmbedderFailed> {
  try {
    await p;
  } catch (err) {
    t.type(err, EmbedderFailed);
    return err as EmbedderFailed;
  }
  t.fail('expected EmbedderFailed');
  return new EmbedderFailed('none');
}

t.test('vectors in input order, batched, 1024 numbers each', async (t) => {
  const fake = await startFakeEmbeddings(t);
  const embedder = createEmbedder({ url: fake.url, model: 'm1' });
  const texts = Array.from({ length: EMBED_BATCH_SIZE * 2 + 5 }, (_, i) => `passage number ${i} about topic ${i % 7}`);
  const vectors = await embedder.embed(texts, 'passage');
  t.equal(vectors.length, texts.length);
  t.ok(vectors.every((v) => v.length === EMBEDDING_DIMENSIONS));
  t.same(vectors, texts.map((x) => fakeEmbedding(x)), 'each vector is its own text\'s, though the fake answers in reverse order');
  t.same(fake.requests.map((r) => r.input.length), [EMBED_BATCH_SIZE, EMBED_BATCH_SIZE, 5], 'three requests');
  t.same(fake.requests.map((r) => [r.method, r.path, r.model]), Array(3).fill(['POST', '/v1/embeddings', 'm1']));
  t.same(fake.requests.flatMap((r) => r.input), texts, 'passages are sent as they are');
  t.same(await embedder.embed([], 'passage'), [], 'nothing to embed, no request');
  t.equal(fake.requests.length, 3);

  const small = createEmbedder({ url: `${fake.url}/`, model: 'm1', batchSize: 2 });
  t.equal((await small.embed(['a', 'b', 'c'], 'passage')).length, 3, 'a trailing slash on the URL is fine');
  t.same(fake.requests.slice(3).map((r) => r.input), [['a', 'b'], ['c']]);
});

t.test('the query prefix goes before queries only', async (t) => {
  const fake = await startFakeEmbeddings(t);
  const embedder = defaultEmbedder({ EMBEDDINGS_URL: fake.url, EMBEDDINGS_QUERY_PREFIX: 'query: ' })!;
  t.equal(embedder.model, 'default', 'EMBEDDINGS_MODEL defaults to "default"');
  const [q] = await embedder.embed(['opening hours'], 'query');
  await embedder.embed(['opening hours'], 'passage');
  t.same(fake.requests.map((r) => r.input), [['query: opening hours'], ['opening hours']]);
  t.same(q, fakeEmbedding('query: opening hours'));
  t.equal(defaultEmbedder({}), null, 'no URL, no embedder');
  t.equal(defaultEmbedder({ EMBEDDINGS_URL: '  ' }), null);
});

t.test('keys: the own key, else the gateway key for the gateway URL only', async (t) => {
  const fake = await startFakeEmbeddings(t);
  const send = async (settings: Parameters<typeof defaultEmbedder>[0]) => {
    await defaultEmbedder({ EMBEDDINGS_URL: fake.url, ...settings })!.embed(['x'], 'passage');
    return fake.requests.at(-1)!;
  };
  t.equal((await send({ EMBEDDINGS_API_KEY: KEY })).key, KEY, 'bearer EMBEDDINGS_API_KEY');
  t.equal((await send({ EMBEDDINGS_API_KEY: KEY })).headers.authorization, `Bearer ${KEY}`);
  t.equal((await send({})).headers.authorization, undefined, 'no key, no header');
  const gateway = fake.url.replace(/\/v1$/, '');
  t.equal((await send({ GATEWAY_API_KEY: 'gw-key', GATEWAY_URL: gateway })).key, 'gw-key', 'empty key and the gateway\'s URL: the gateway key');
  t.equal((await send({ EMBEDDINGS_API_KEY: KEY, GATEWAY_API_KEY: 'gw-key', GATEWAY_URL: gateway })).key, KEY, 'an own key wins');
  t.equal((await send({ GATEWAY_API_KEY: 'gw-key', GATEWAY_URL: 'https://gateway.example.com' })).key, null, 'another URL never gets the gateway key');
  t.equal((await send({ GATEWAY_API_KEY: 'gw-key' })).key, null, 'no GATEWAY_URL: no URL is the gateway\'s');

  t.ok(isGatewayUrl('https://gw.example.com/v1', 'https://gw.example.com'));
  t.ok(isGatewayUrl('https://gw.example.com/ai/v1', 'https://gw.example.com/ai/'));
  t.notOk(isGatewayUrl('https://gw.example.com/aiv1', 'https://gw.example.com/ai'), 'a path prefix is not a path');
  t.notOk(isGatewayUrl('https://gw.example.com.evil.net/v1', 'https://gw.example.com'), 'the origin must match');
  t.notOk(isGatewayUrl('http://gw.example.com/v1', 'https://gw.example.com'), 'and its scheme');
  t.notOk(isGatewayUrl('not a url', 'https://gw.example.com'));
});

t.test('failures are EmbedderFailed with a status and a hint, never the key', async (t) => {
  const fake = await startFakeEmbeddings(t, { apiKey: KEY });
  const good = createEmbedder({ url: fake.url, model: 'm', apiKey: KEY });
  const checkSafe = (t: Test, err: EmbedderFailed) => {
    t.notMatch(err.message, KEY);
    t.notMatch(err.message, /\n +at /, 'no stack in the message');
  };

  let err = await failure(t, createEmbedder({ url: fake.url, model: 'm', apiKey: 'sk-wrong' }).embed(['x'], 'passage'));
  t.equal(err.status, 401);
  t.match(err.message, /^401 from the embeddings service at 127\.0\.0\.2:\d+: check the key$/);
  t.notMatch(err.message, 'sk-wrong');

  fake.failNext(500);
  err = await failure(t, good.embed(['x'], 'passage'));
  t.equal(err.status, 500);
  t.match(err.message, /500 from the embeddings service .*try again later/);
  checkSafe(t, err);

  fake.failNext(400);
  err = await failure(t, good.embed(['x'], 'passage'));
  t.equal(err.status, 400);
  t.match(err.message, /400 .*refused \(fake failure 400\); check the model name "m"/, 'the service\'s own reason, short');

  fake.failNext(429);
  t.match((await failure(t, good.embed(['x'], 'passage'))).message, /429 .*rate limited/);

  err = await failure(t, createEmbedder({ url: fake.url.replace(/\/v1$/, '/v2'), model: 'm', apiKey: KEY }).embed(['x'], 'passage'));
  t.equal(err.status, 404);
  t.match(err.message, /check the URL \(it should end in \/v1\)/);

  fake.failNext('timeout');
  err = await failure(t, createEmbedder({ url: fake.url, model: 'm', apiKey: KEY, timeoutMs: 300 }).embed(['x'], 'passage'));
  t.equal(err.status, undefined);
  t.match(err.message, /did not answer within 0.3 s; try again later/);
  checkSafe(t, err);

  fake.failNext(503);
  await failure(t, good.embed(Array(EMBED_BATCH_SIZE + 1).fill('x'), 'passage'));
  t.equal(fake.requests.at(-1)!.input.length, EMBED_BATCH_SIZE, 'a failing batch stops the rest');

  const closed = await startFakeEmbeddings(t);
  const gone = closed.url;
  await closed.close();
  err = await failure(t, createEmbedder({ url: gone, model: 'm' }).embed(['x'], 'passage'));
  t.match(err.message, /cannot be reached \(127\.0\.0\.2:\d+ refused the connection\): check the URL/);

  err = await failure(t, createEmbedder({ url: 'not a url', model: 'm', apiKey: KEY }).embed(['x'], 'passage'));
  t.match(err.message, /not valid/);
  checkSafe(t, err);

  t.same(await good.embed(['still works'], 'passage'), [fakeEmbedding('still works')], 'after failures the next call works');
});

t.test('answers that are not 1024 finite numbers in order are refused', async (t) => {
  const short = await startFakeEmbeddings(t, { dimensions: 768 });
  let err = await failure(t, createEmbedder({ url: short.url, model: 'small' }).embed(['x'], 'passage'));
  t.match(err.message, /vectors of 768 numbers; 1024 are needed/);
  t.equal(err.status, 200);

  const fake = await startFakeEmbeddings(t);
  const embedder = createEmbedder({ url: fake.url, model: 'm' });
  fake.setVectorFor('bad', [...Array(1023).fill(0), 'NaN'] as unknown as number[]); // JSON has no NaN: services send it as text
  err = await failure(t, embedder.embed(['fine', 'bad'], 'passage'));
  t.match(err.message, /not a finite number/);
  fake.setVectorFor('short', [1, 2, 3]);
  t.match((await failure(t, embedder.embed(['short'], 'passage'))).message, /vectors of 3 numbers/);
});

t.test('the fake\'s vectors rank a text that shares words above one that does not', async (t) => {
  const fake = await startFakeEmbeddings(t);
  const embedder: Embedder = createEmbedder({ url: fake.url, model: 'm', queryPrefix: 'query: ' });
  const passages = ['The library opens at nine in the morning', 'Pizza night is on Friday at our student union', 'Library cards are free for members'];
  const vectors = await embedder.embed(passages, 'passage');
  const [q] = await embedder.embed(['when does the library open'], 'query');
  const ranked = passages.map((p, i) => ({ p, score: cosine(q, vectors[i]) })).sort((a, b) => b.score - a.score).map((r) => r.p);
  t.equal(ranked.at(-1), passages[1], 'the text sharing no word ranks last');
  t.equal(ranked[0], passages[0], 'the one sharing most words ranks first');
  t.ok(Math.abs(cosine(vectors[0], vectors[0]) - 1) < 1e-9, 'normalised');
  t.same(fakeEmbedding('Library, LIBRARY!'), fakeEmbedding('library library'), 'lowercased word tokens');
});

t.test('embedderForOrg: the org\'s connected integration, else the deployment default', async (t) => {
  const fake = await startFakeEmbeddings(t);
  const own = await startFakeEmbeddings(t, { apiKey: 'org-key' });
  const knowledge = defineModule({
    name: 'knowledge',
    title: 'Knowledge (embeddings test)',
    description: 'Declares the embeddings integration the adapter reads.',
    category: 'Knowledge',
    integrations: [{
      key: 'embeddings', title: 'Embeddings', description: 'An OpenAI-compatible embeddings service.',
      secrets: [
        { name: EMBEDDINGS_SECRETS.url, label: 'Base URL' },
        { name: EMBEDDINGS_SECRETS.model, label: 'Model' },
        { name: EMBEDDINGS_SECRETS.apiKey, label: 'API key', optional: true },
        { name: EMBEDDINGS_SECRETS.queryPrefix, label: 'Query prefix', optional: true },
      ],
    }],
  });
  const quad = await startTestApp(t, { plugins: [knowledge], config: { SECRETS_KEY: [Buffer.alloc(32, 7).toString('base64')] } });
  const org = await quad.createOrg({ prefix: 'emb' });
  const em = quad.orm.em.fork();
  const settings = { EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'deployment-model', EMBEDDINGS_QUERY_PREFIX: 'q: ' };
  const forOrg = () => embedderForOrg({ settings, secrets: quad.services.secrets, em, orgId: org.id });

  let embedder = await forOrg();
  t.equal(embedder?.model, 'deployment-model', 'nothing set: the deployment default');
  t.equal(await embedderForOrg({ settings: {}, secrets: quad.services.secrets, em, orgId: org.id }), null, 'and without one, none');

  await quad.services.secrets.set(em, org.id, EMBEDDINGS_SECRETS.url, own.url);
  t.equal((await forOrg())?.model, 'deployment-model', 'a URL without a model does not connect the integration');

  await quad.services.secrets.set(em, org.id, EMBEDDINGS_SECRETS.model, 'org-model');
  await quad.services.secrets.set(em, org.id, EMBEDDINGS_SECRETS.apiKey, 'org-key');
  embedder = await forOrg();
  t.equal(embedder?.model, 'org-model');
  await embedder!.embed(['hello'], 'query');
  t.same(own.requests.map((r) => [r.key, r.model, r.input]), [['org-key', 'org-model', ['hello']]], 'the org\'s URL, key and model; no deployment prefix');
  t.equal(fake.requests.length, 0);

  await quad.services.secrets.set(em, org.id, EMBEDDINGS_SECRETS.queryPrefix, 'search_query: ');
  await (await forOrg())!.embed(['hello'], 'query');
  t.same(own.requests.at(-1)!.input, ['search_query: hello'], 'the org\'s own query prefix');

  // An org's URL on a private address is refused before a connection; the deployment's own URL is trusted.
  const canary = createServer((_req, res) => res.end('{}'));
  let reached = 0;
  canary.on('connection', () => { reached++; });
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => canary.close(resolve)));
  const port = (canary.address() as AddressInfo).port;
  for (const url of [`http://127.0.0.1:${port}/v1`, `http://2130706433:${port}/v1`, `http://[::ffff:127.0.0.1]:${port}/v1`, `http://localhost:${port}/v1`]) {
    await quad.services.secrets.set(em, org.id, EMBEDDINGS_SECRETS.url, url);
    const err = await failure(t, (await forOrg())!.embed(['hello'], 'query'));
    t.match(err.message, /^The embeddings URL cannot be used \(.* is a loopback address: refused\)/, url);
  }
  t.equal(reached, 0, 'the private address never saw a connection');
  await quad.services.secrets.set(em, org.id, EMBEDDINGS_SECRETS.url, own.url);

  const unconfigured = { configured: false, names: quad.services.secrets.names.bind(quad.services.secrets), get: quad.services.secrets.get.bind(quad.services.secrets) };
  t.equal((await embedderForOrg({ settings, secrets: unconfigured, em, orgId: org.id }))?.model, 'deployment-model', 'no SECRETS_KEY: the default');
});
