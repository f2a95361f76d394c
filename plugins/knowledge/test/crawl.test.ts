// Crawls against a fake website on the test's outside address (real HTTP, jobs run by the worker): crawl records
// and their validation, robots.txt, redirects, the unchanged hash, the half-size refusal and force, a failing page
// that keeps its passages and recovers, the page-rendering service, limits, 409 on a second start, the run log.
import t from 'tap';
import { allowOutside, bearer, startFakeRenderer, startFakeSite, type FakeSite } from '@quad/core/testing';
import { startKnowledgeWorld, type KnowledgeWorld } from './world.js';
import { RENDER_SECRETS } from '../crawl/crawl-source.js';

allowOutside(t);

const SECRETS_KEY = Buffer.alloc(32, 3).toString('base64');
const w: KnowledgeWorld = await startKnowledgeWorld(t, {
  role: 'all',
  config: { SECRETS_KEY: [SECRETS_KEY], KNOWLEDGE_CHUNK_CHARS: 200, KNOWLEDGE_USER_AGENT: 'QuadTestBot/1.0 (+https://quad.test)', LIMIT_KNOWLEDGE_JOBS_PER_DAY: 100 },
});
const { quad } = w;
const site: FakeSite = await startFakeSite(t);

const article = (title: string, paragraphs: string[]) => `<!doctype html><html><head><title>${title}</title></head><body>
  <header>Site header menu</header><nav><a href="/">Home</a> <a href="/about">About us</a></nav>
  <main>${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}</main>
  <form><input name="q"><button>Search the site</button></form><script>var tracking = 1;</script>
  <footer>Copyright footer text</footer></body></html>`;

const sentence = (topic: string, i: number) => `The ${topic} paragraph number ${i} tells members about opening hours, study rooms and the quiet floor.`;
const longText = (topic: string, n: number) => Array.from({ length: n }, (_, i) => sentence(topic, i));

const putCrawl = (key: string, body: Record<string, unknown>, token = w.acmToken) =>
  quad.api.inject({ method: 'PUT', url: `/api/knowledge/crawls/${key}`, headers: bearer(token), payload: body });
const runCrawl = (key: string, force = false, token = w.acmToken) =>
  quad.api.inject({ method: 'POST', url: '/api/knowledge/crawls/run', headers: bearer(token), payload: { key, force } });

/** Start a crawl, wait for its job, and answer the newest run-log row of the key. */
async function crawl(key: string, force = false) {
  const res = await runCrawl(key, force);
  if (res.statusCode !== 202) throw new Error(`run: ${res.statusCode} ${res.body}`);
  const run = await quad.waitForRun(res.json().run_id);
  if (run.status !== 'succeeded') throw new Error(`job ${run.status}: ${run.error}`);
  const [row] = await w.sql<{ changed: boolean; passages: number; error: string | null }>(
    'select changed, passages, error from knowledge_runs where source_key = ? order by id desc limit 1', [key]);
  return row;
}

const source = async (key: string) => (await w.get(`/api/knowledge/sources/${key}`)).json();
const problems = (key: string) => w.sql<{ resolved: boolean; message: string }>(
  "select resolved_at is not null as resolved, message from notifications where kind = 'knowledge.source_unfetchable' and data->>'key' = ?", [key]);

t.test('crawl records: saved by a token, every rule checked', async (t) => {
  let res = await putCrawl('site/hours', { url: `${site.origin}/hours#top`, category: 'library', fetch_every_hours: 12 });
  t.equal(res.statusCode, 201, res.body);
  t.match(res.json(), { key: 'site/hours', url: `${site.origin}/hours`, category: 'library', fetch_every_hours: 12, enabled: true, last_error: null });
  res = await putCrawl('site/hours', { title: 'Library hours' });
  t.equal(res.statusCode, 200, 'a second PUT changes it');
  t.match(res.json(), { url: `${site.origin}/hours`, title: 'Library hours', fetch_every_hours: 12 });
  res = await putCrawl('site/default', { url: `${site.origin}/x` });
  t.equal(res.json().fetch_every_hours, 24, 'default every 24 hours');

  for (const [body, field] of [
    [{ url: 'ftp://example.com/file' }, 'body.url'], [{ url: 'not a url' }, 'body.url'], [{ url: 'https://user:pw@example.com/' }, 'body.url'],
    [{ url: `${site.origin}/a`, fetch_every_hours: 0 }, 'body.fetch_every_hours'], [{ url: `${site.origin}/a`, fetch_every_hours: 721 }, 'body.fetch_every_hours'],
    [{ url: `${site.origin}/a`, extra: 1 }, 'body'],
  ] as const) {
    const bad = await putCrawl('site/bad', body);
    t.equal(bad.statusCode, 400, JSON.stringify(body));
    t.match(bad.json(), { field: new RegExp(`^${field.replace('.', '\\.')}`) });
  }
  t.equal((await putCrawl('site/new', { category: 'x' })).statusCode, 400, 'a new crawl needs a URL');
  t.equal((await putCrawl('bad key!', { url: `${site.origin}/a` })).statusCode, 400);
  const pub = await putCrawl('site/public', { url: `${site.origin}/a`, public: true });
  t.equal(pub.statusCode, 403, 'only publishers crawl public sources');
  t.equal((await putCrawl('site/r', { url: `${site.origin}/a` }, w.readerToken)).statusCode, 403, 'knowledge:write is needed');
  t.equal((await runCrawl('site/none')).statusCode, 404, 'run of an unknown crawl');
  t.equal((await w.sql("select count(*)::int as n from knowledge_crawls where key in ('site/bad', 'site/new', 'site/public', 'site/r')"))[0].n, 0, 'nothing written');
});

t.test('a page is crawled into passages with its title; menus, forms and scripts are left out', async (t) => {
  site.robots('User-agent: *\nDisallow: /private\n');
  site.set('/hours', { body: article('Library Hours', longText('library', 8)) });
  const run = await crawl('site/hours');
  t.match(run, { changed: true, error: null });
  t.ok(run.passages >= 4, `${run.passages} passages`);
  const s = await source('site/hours');
  t.match(s, { key: 'site/hours', origin: 'crawl', title: 'Library hours', category: 'library', url: `${site.origin}/hours`, crawl: { last_error: null } });
  t.equal(s.chunks.length, run.passages);
  for (const c of s.chunks) {
    t.ok(c.content.startsWith('Library hours\n'), 'the title line on each passage');
    t.ok(c.content.length - 'Library hours\n'.length <= 200, 'bodies of chunk_chars');
    t.notMatch(c.content, /Site header|About us|Search the site|tracking|Copyright/);
  }
  t.match(s.chunks.map((c: { content: string }) => c.content).join(' '), /paragraph number 7/);
  t.ok(site.requests.some((r) => r.path === '/robots.txt' && r.userAgent === 'QuadTestBot/1.0 (+https://quad.test)'), 'robots.txt read with KNOWLEDGE_USER_AGENT');
  t.ok(s.current_version.embedding_model, 'embedded by the org\'s embedder');

  const found = await w.search({ query: 'quiet floor study rooms' });
  t.equal(found.json().results[0].source_key, 'site/hours', 'search finds it');

  // The reader strips the title line of each row.
  const page = await w.asOfficer('GET', `/api/dashboard/${w.org.prefix}/knowledge/sources/site/hours`);
  t.notMatch(page.json().passages.map((p: { text: string }) => p.text).join(''), /Library hours/);
});

t.test('an unchanged page stops at its hash; a changed one makes a new version; force crawls anyway', async (t) => {
  const before = (await source('site/hours')).current_version.id;
  t.match(await crawl('site/hours'), { changed: false, passages: 0, error: null });
  t.equal((await source('site/hours')).current_version.id, before, 'same version');
  t.match(await crawl('site/hours', true), { changed: false, passages: 0, error: null }, 'forced, the same text is still the same version');
  site.set('/hours', { body: article('Library Hours', [...longText('library', 8), 'Summer hours start in June.']) });
  t.match(await crawl('site/hours'), { changed: true, error: null });
  t.not((await source('site/hours')).current_version.id, before);
});

t.test('a text under half of the last is refused unless forced; a failing page keeps its passages and recovers', async (t) => {
  const kept = (await source('site/hours')).current_version.id;
  site.set('/hours', { body: article('Library Hours', longText('library', 2)) });
  const refused = await crawl('site/hours');
  t.match(refused, { changed: false, error: /shrank from \d+ to \d+ characters \(under half\).*force/ });
  t.equal((await source('site/hours')).current_version.id, kept, 'the last version is kept');
  t.match((await source('site/hours')).crawl.last_error, /shrank/);
  t.match(await problems('site/hours'), [{ resolved: false, message: /shrank/ }], 'a problem is raised');

  t.match(await crawl('site/hours', true), { changed: true, error: null }, 'force accepts it');
  t.same(await problems('site/hours'), [], 'and the problem clears');
  const short = (await source('site/hours')).current_version.id;

  site.set('/hours', { status: 500, body: 'oops' });
  t.match(await crawl('site/hours'), { changed: false, error: /answered 500 for \/hours/ });
  t.equal((await source('site/hours')).current_version.id, short, 'a failing page keeps its chunks');
  t.match(await problems('site/hours'), [{ resolved: false, message: /answered 500/ }]);
  site.set('/hours', { body: article('Library Hours', longText('library', 3)) });
  t.match(await crawl('site/hours'), { error: null });
  t.equal((await source('site/hours')).crawl.last_error, null);
  t.same(await problems('site/hours'), [], 'recovered: the problem clears');
});

t.test('robots.txt: disallowed paths, a missing file, an unreadable one', async (t) => {
  await putCrawl('site/private', { url: `${site.origin}/private/notes` });
  site.set('/private/notes', { body: article('Private', ['Secret notes of the officers.']) });
  t.match(await crawl('site/private'), { error: /robots\.txt of 127\.0\.0\.2:\d+ does not allow QuadTestBot to fetch \/private\/notes/ });
  t.notOk(site.requests.some((r) => r.path === '/private/notes'), 'the page was never fetched');
  site.robots('User-agent: QuadTestBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n');
  t.match(await crawl('site/private'), { error: /does not allow/ }, 'a group for the bot\'s token applies');
  site.robots(404);
  t.match(await crawl('site/private'), { changed: true, error: null }, 'no robots.txt: allowed');
  site.robots(503);
  t.match(await crawl('site/private', true), { error: /robots\.txt of .* answered 503/ }, 'an unreadable robots.txt: not fetched');
  site.robots('User-agent: *\nDisallow: /private\n');
});

t.test('redirects are followed and checked; private addresses are refused', async (t) => {
  site.set('/old', { redirect: '/moved', status: 301 });
  site.set('/moved', { body: article('Moved page', ['The page that moved has new text about the maker space.']) });
  await putCrawl('site/old', { url: `${site.origin}/old` });
  t.match(await crawl('site/old'), { changed: true, error: null });
  t.match((await source('site/old')).chunks[0].content, /maker space/);

  site.set('/evil', { redirect: 'http://127.0.0.1:9/', status: 302 });
  await putCrawl('site/evil', { url: `${site.origin}/evil` });
  t.match(await crawl('site/evil'), { error: /127\.0\.0\.1 is a loopback address: refused/ });
  await putCrawl('site/local', { url: 'http://localhost:9/' });
  t.match(await crawl('site/local'), { error: /loopback address: refused/ });
  await putCrawl('site/meta', { url: 'http://169.254.169.254/latest/meta-data/' });
  t.match(await crawl('site/meta'), { error: /link-local address: refused/ });
});

t.test('other page types: plain text and PDF-free pages, and pages without text', async (t) => {
  site.set('/notes.txt', { body: 'Plain text notes about the robotics club meeting.', type: 'text/plain; charset=utf-8' });
  await putCrawl('site/notes', { url: `${site.origin}/notes.txt`, title: 'Notes' });
  t.match(await crawl('site/notes'), { changed: true, error: null });
  t.match((await source('site/notes')).chunks[0].content, /^Notes\nPlain text notes/);
  site.set('/app', { body: '<html><head><title>App</title></head><body><div id="root"></div><script>render()</script></body></html>' });
  await putCrawl('site/app', { url: `${site.origin}/app` });
  t.match(await crawl('site/app'), { error: /no text \(if it is built by JavaScript, set a page-rendering service\)/ });
  site.set('/image', { body: Buffer.from([1, 2, 3]), type: 'image/png' });
  await putCrawl('site/image', { url: `${site.origin}/image` });
  t.match(await crawl('site/image'), { error: /image\/png, which is not read/ });
});

t.test('the org\'s page-rendering service gets the URL; its failures are recorded', async (t) => {
  const renderer = await startFakeRenderer(t, { apiKey: 'render-key' });
  const em = quad.orm.em.fork();
  await quad.services.secrets.set(em, w.org.id, RENDER_SECRETS.url, renderer.url);
  await quad.services.secrets.set(em, w.org.id, RENDER_SECRETS.apiKey, 'render-key');
  t.teardown(async () => {
    await quad.services.secrets.delete(em, w.org.id, RENDER_SECRETS.url);
    await quad.services.secrets.delete(em, w.org.id, RENDER_SECRETS.apiKey);
  });
  renderer.set(`${site.origin}/app`, article('Rendered app', ['Text that only scripts put on the page: the hackathon schedule.']));
  t.match(await crawl('site/app'), { changed: true, error: null });
  t.match((await source('site/app')).chunks[0].content, /hackathon schedule/);
  t.same(renderer.requests.at(-1), { url: `${site.origin}/app`, key: 'render-key' }, 'the page URL and the org\'s key');
  renderer.failNext(401);
  t.match(await crawl('site/app', true), { error: /page-rendering service answered 401: check its key/ });
  renderer.failNext(500);
  t.match(await crawl('site/app', true), { error: /page-rendering service answered 500/ });
  t.match((await source('site/app')).chunks[0].content, /hackathon schedule/, 'the passages are kept');
});

t.test('one crawl of a source at a time (409); the day\'s job limit (429)', async (t) => {
  site.set('/slow', { body: article('Slow', ['A slow page about the chess club.']), delayMs: 1500 });
  await putCrawl('site/slow', { url: `${site.origin}/slow` });
  const first = await runCrawl('site/slow');
  t.equal(first.statusCode, 202);
  const second = await runCrawl('site/slow');
  t.equal(second.statusCode, 409, 'a second start while one runs');
  t.match(second.json(), { reason: 'job_running' });
  await quad.waitForRun(first.json().run_id);
});

t.test('the run log: newest first, failed only, limits', async (t) => {
  const all = await w.asOfficer('GET', `/api/dashboard/${w.org.prefix}/knowledge/runs?limit=5`);
  t.equal(all.statusCode, 200);
  t.equal(all.json().runs.length, 5);
  const ids = all.json().runs.map((r: { id: number }) => r.id);
  t.same(ids, [...ids].sort((a: number, b: number) => b - a), 'newest first');
  t.match(all.json().runs[0], { kind: 'crawl', source_key: String, started_at: String, duration_ms: Number });
  const failed = await w.asOfficer('GET', `/api/dashboard/${w.org.prefix}/knowledge/runs?failed=1&limit=500`);
  t.ok(failed.json().runs.length > 3);
  t.ok(failed.json().runs.every((r: { error: string | null }) => r.error !== null));
  const one = await w.asOfficer('GET', `/api/dashboard/${w.org.prefix}/knowledge/runs?key=site/private&limit=500`);
  t.ok(one.json().runs.length >= 4);
  t.ok(one.json().runs.every((r: { source_key: string }) => r.source_key === 'site/private'), 'only the key\'s runs');
  t.equal((await w.asOfficer('GET', `/api/dashboard/${w.org.prefix}/knowledge/runs?limit=501`)).statusCode, 400);
  t.equal((await w.asOfficer('GET', `/api/dashboard/${w.org.prefix}/knowledge/runs?limit=0`)).statusCode, 400);
  const beta = await w.sql('select count(*)::int as n from knowledge_runs where organization_id = ?', [w.beta.id]);
  t.equal(beta[0].n, 0, 'another org has none of them');
});

t.test('dashboard crawl routes: list, add, run, delete; deleting a source deletes its crawl', async (t) => {
  const base = `/api/dashboard/${w.org.prefix}/knowledge`;
  const list = await w.asOfficer('GET', `${base}/crawls`);
  t.ok(list.json().crawls.some((c: { key: string }) => c.key === 'site/hours'));
  site.set('/faq', { body: article('FAQ', ['Questions members ask about dues and the lounge.']) });
  t.equal((await w.asOfficer('PUT', `${base}/crawls/site/faq`, { url: `${site.origin}/faq`, category: 'faq' })).statusCode, 201);
  const run = await w.asOfficer('POST', `${base}/crawls/run`, { key: 'site/faq' });
  t.equal(run.statusCode, 202);
  await quad.waitForRun(run.json().run_id);
  const sources = await w.asOfficer('GET', `${base}/sources`);
  const faq = sources.json().sources.find((s: { key: string }) => s.key === 'site/faq');
  t.match(faq, { origin: 'crawl', crawl: { url: `${site.origin}/faq`, last_error: null } });
  t.ok(Date.parse(faq.crawl.next_at) > Date.now() + 23 * 3600_000, 'a crawl run now counts the next one from now');
  t.equal((await w.asOfficer('DELETE', `${base}/sources/site/faq`)).statusCode, 200);
  t.equal((await w.sql("select count(*)::int as n from knowledge_crawls where key = 'site/faq'"))[0].n, 0, 'a deleted source is not crawled back');
  t.equal((await w.asOfficer('DELETE', `${base}/crawls/site/old`)).statusCode, 200);
  t.ok((await source('site/old')).chunks.length > 0, 'deleting a crawl keeps its source');
  t.equal((await w.asOfficer('DELETE', `${base}/crawls/site/old`)).statusCode, 404);
});

t.test('tools: knowledge.crawls, knowledge.crawl and knowledge.runs', async (t) => {
  const call = (name: string, args: Record<string, unknown>, token = w.acmToken) =>
    quad.api.inject({ method: 'POST', url: '/api/tools/call', headers: bearer(token), payload: { name, arguments: args } });
  const crawls = await call('knowledge.crawls', {});
  t.equal(crawls.statusCode, 200, crawls.body);
  t.ok(crawls.json().result.crawls.some((c: { key: string; last_error: string | null }) => c.key === 'site/hours'));
  const started = await call('knowledge.crawl', { key: 'site/hours', force: true });
  t.equal(started.statusCode, 200, started.body);
  await quad.waitForRun(started.json().result.run_id);
  const reader = await call('knowledge.crawl', { key: 'site/hours' }, w.readerToken);
  t.match([reader.statusCode, reader.json().reason], [404, 'unknown_tool'], 'without knowledge:write the tool is not there');
  t.equal((await call('knowledge.crawl', { key: 'site/none' })).statusCode, 404);
  const runs = await call('knowledge.runs', { failed: true, limit: 3 }, w.readerToken);
  t.equal(runs.statusCode, 200);
  t.equal(runs.json().result.runs.length, 3);
  t.ok(runs.json().result.runs.every((r: { error: string | null }) => r.error));
});
