// SSRF: every form of PITFALLS.md fired at the crawler (as the crawl URL, as a redirect from an outside page, as
// names whose DNS answers are loopback or change between lookups), at the org's page-rendering service URL and at
// the org's embeddings URL. A canary on 127.0.0.1 and ::1 must see zero connections; each attempt must end in a
// refusal recorded where the officer sees it.
import t from 'tap';
import {
  allowOutside, bearer, resolveWithDnsServerForTests, startCanary, startFakeDns, startFakeRenderer, startFakeSite, ssrfForms, userinfoForms, OUTSIDE_HOST,
} from '@quad/core/testing';
import { startKnowledgeWorld } from './world.js';
import { crawlSource, RENDER_SECRETS } from '../crawl/crawl-source.js';
import { EMBEDDINGS_SECRETS, embedderForOrg } from '../embeddings.js';

allowOutside(t);
const canary = await startCanary();
t.teardown(() => canary.close());
const dns = await startFakeDns();
t.teardown(resolveWithDnsServerForTests(dns.server));
t.teardown(() => dns.close());

const SECRETS_KEY = Buffer.alloc(32, 9).toString('base64');
const w = await startKnowledgeWorld(t, { config: { SECRETS_KEY: [SECRETS_KEY] } });
const { quad } = w;
const site = await startFakeSite(t);
const port = canary.port;
const sitePort = new URL(site.origin).port;

dns.set('canary.test', ['127.0.0.1']);
dns.set('canary6.test', ['::1']);
dns.set('mixed.test', [OUTSIDE_HOST, '127.0.0.1']);
// The first lookup (the URL check) answers the outside address, every later one loopback.
dns.set('rebind.test', [OUTSIDE_HOST], ['127.0.0.1']);

const ctx = async () => ({ em: quad.emFor(w.org.id), org: (await quad.orgs.find(w.org.prefix))!, services: quad.services, log: quad.log });
let n = 0;

/** Save a crawl of `url` and crawl it once: its recorded error. */
async function crawlError(url: string): Promise<string | null> {
  const key = `ssrf/${n++}`;
  const saved = await quad.api.inject({ method: 'PUT', url: `/api/knowledge/crawls/${key}`, headers: bearer(w.acmToken), payload: { url } });
  if (saved.statusCode !== 201) throw new Error(`${url}: ${saved.statusCode} ${saved.body}`);
  return (await crawlSource(await ctx(), key, { force: true }))!.error;
}

t.test('the crawl URL: every form is refused', async (t) => {
  for (const url of [...ssrfForms(port), `http://canary.test:${port}/`, `http://canary6.test:${port}/`, `http://mixed.test:${port}/`]) {
    t.match(await crawlError(url), /address: refused/, url);
  }
  t.match(await crawlError(`http://rebind.test:${sitePort}/page`), /address: refused/, 'a name that turns to loopback after the check');
  for (const url of userinfoForms(port, OUTSIDE_HOST)) {
    const res = await quad.api.inject({ method: 'PUT', url: '/api/knowledge/crawls/ssrf/userinfo', headers: bearer(w.acmToken), payload: { url } });
    t.equal(res.statusCode, 400, `${url} is not saved`);
  }
  for (const url of ['file:///etc/passwd', 'gopher://127.0.0.1:70/', 'ftp://127.0.0.1/']) {
    const res = await quad.api.inject({ method: 'PUT', url: '/api/knowledge/crawls/ssrf/scheme', headers: bearer(w.acmToken), payload: { url } });
    t.equal(res.statusCode, 400, `${url} is not saved`);
  }
  const runs = await w.sql<{ n: number }>("select count(*)::int as n from knowledge_runs where source_key like 'ssrf/%' and error like '%refused%'");
  t.equal(runs[0].n, n, 'each refusal is in the run log');
});

t.test('a redirect from an outside page to any form is refused', async (t) => {
  for (const [i, to] of [...ssrfForms(port), `http://canary.test:${port}/`, 'file:///etc/passwd'].entries()) {
    site.set(`/r${i}`, { redirect: to });
    t.match(await crawlError(`${site.origin}/r${i}`), /refused|Only http/, `redirect to ${to}`);
  }
});

t.test('the org\'s page-rendering service URL is checked like any other', async (t) => {
  const renderer = await startFakeRenderer(t);
  site.set('/page', { body: '<title>Page</title><p>text</p>' });
  renderer.set(`${site.origin}/page`, '<title>Rendered</title><p>rendered text about the robotics team</p>');
  const em = quad.orm.em.fork();
  for (const url of [`http://127.0.0.1:${port}`, `http://[::ffff:127.0.0.1]:${port}`, `http://canary.test:${port}`, `http://localhost:${port}`]) {
    await quad.services.secrets.set(em, w.org.id, RENDER_SECRETS.url, url);
    t.match(await crawlError(`${site.origin}/page`), /^the page-rendering service: .*address: refused/, url);
  }
  await quad.services.secrets.set(em, w.org.id, RENDER_SECRETS.url, renderer.url);
  t.equal(await crawlError(`${site.origin}/page`), null, 'an outside rendering service works');
  // The page URL is checked before the rendering service is asked to fetch it.
  const asked = renderer.requests.length;
  t.match(await crawlError(`http://canary.test:${port}/`), /address: refused/);
  t.equal(renderer.requests.length, asked, 'the service was never asked to fetch a private URL');
  await quad.services.secrets.delete(em, w.org.id, RENDER_SECRETS.url);
});

t.test('the org\'s embeddings URL is checked like any other', async (t) => {
  const em = quad.orm.em.fork();
  await quad.services.secrets.set(em, w.org.id, EMBEDDINGS_SECRETS.model, 'own');
  for (const url of [...ssrfForms(port).slice(0, 22).map((u) => `${u}v1`), `http://canary.test:${port}/v1`, `http://rebind.test:${port}/v1`]) {
    await quad.services.secrets.set(em, w.org.id, EMBEDDINGS_SECRETS.url, url);
    const embedder = await embedderForOrg({ settings: {}, secrets: quad.services.secrets, em, orgId: w.org.id });
    const err = await embedder!.embed(['hello'], 'passage').then(() => null, (e: Error) => e);
    t.match(err?.message, /The embeddings URL cannot be used \(.*refused\)/, url);
  }
  // Through the route: a write embedded by the org's own URL fails with 502 and writes nothing.
  const res = await w.put('ssrf-embedded', { chunks: [{ ordinal: 0, content: 'text to embed' }] });
  t.equal(res.statusCode, 502);
  t.match(res.json().error, /nothing was written.*refused/);
  t.equal((await w.get('/api/knowledge/sources/ssrf-embedded')).statusCode, 404);
  await quad.services.secrets.delete(em, w.org.id, EMBEDDINGS_SECRETS.url);
  await quad.services.secrets.delete(em, w.org.id, EMBEDDINGS_SECRETS.model);
});

t.test('the canary saw no connection', async (t) => {
  t.equal(canary.connections(), 0);
  t.ok(dns.queries.some((q) => q === 'A rebind.test'), 'the rebinding name was asked');
});
