// Live queries against the fake campus sites and the fake search service, without the knowledge module: HTML and
// JSON answers as text, 404 for an unknown submodule or query, 422 naming the accepted values, 502 when the site
// fails (no address in the body), the cut at SUBMODULE_QUERY_MAX_CHARS, the web query (503 without a search service,
// then the org's own), the legacy /api/campus/query, no tool and no indexing job without the knowledge module.
import t from 'tap';
import { allowOutside } from '@quad/core/testing';
import { randomBytes } from 'node:crypto';
import { startSubmodulesWorld } from './world.js';

const MAX_CHARS = 2000;
allowOutside(t); // the org's own search service is an org-given URL: fetched with the public-address checks
const w = await startSubmodulesWorld(t, { searchUrl: false, config: { SUBMODULE_QUERY_MAX_CHARS: MAX_CHARS, SECRETS_KEY: [randomBytes(32).toString('base64')] } });
const ask = (body: Record<string, unknown>, submodule = 'campus', token = w.readerToken) => w.call('POST', `/api/submodules/${submodule}/query`, token, body);

t.test('an HTML answer: the page\'s main text, without its chrome', async (t) => {
  const res = await ask({ source: 'library_hours' });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.same(Object.keys(body), ['submodule', 'source', 'url', 'text']);
  t.match(body, { submodule: 'campus', source: 'library_hours', url: `${w.campus.url}/hours/main` }, 'the default branch');
  t.equal(body.text, 'Main Library hours\nThis week\nMonday–Thursday | 7:30 am – 2:00 am\nFriday | 7:30 am – 9:00 pm\nSaturday | 10:00 am – 9:00 pm\nSunday | 10:00 am – 2:00 am');
  const dated = (await ask({ source: 'library_hours', params: { branch: 'science', date: '2026-03-02' } })).json();
  t.equal(dated.url, `${w.campus.url}/hours/science?date=2026-03-02`);
  t.match(dated.text, /^Science Library hours\nHours for 2026-03-02\n/);
  t.match(w.campus.requests.at(-1), { path: '/hours/science', query: { date: '2026-03-02' }, userAgent: /^Quad\// });
});

t.test('a JSON answer: "field: value" lines per item', async (t) => {
  const res = await ask({ source: 'events', params: { category: 'career', days: 7 } });
  t.equal(res.statusCode, 200);
  t.equal(res.json().url, `${w.campus.url}/api/events?category=career&days=7`, 'a number is read as text');
  t.equal(res.json().text, 'title: Spring Career Fair\nstart: 2026-03-04T10:00:00-05:00\nlocation: Field House\nurl: https://www.northfield.example/events/career-fair');
  t.equal((await ask({ source: 'events', params: { category: 'sports' } })).json().text, 'No events in that time.');
  const jobs = (await ask({ source: 'jobs' })).json().text;
  t.equal(jobs.split('\n\n').length, 3, 'every item, blank lines between');
});

t.test('404: an unknown submodule or query', async (t) => {
  const submodule = await ask({ source: 'library_hours' }, 'nope');
  t.equal(submodule.statusCode, 404);
  t.match(submodule.json(), { reason: 'unknown_submodule' });
  const query = await ask({ source: 'parking' });
  t.equal(query.statusCode, 404);
  t.match(query.json(), { reason: 'unknown_query', error: /library_hours, events/ });
  t.match((await ask({ source: 'events' }, 'careers')).json(), { reason: 'unknown_query', error: /no live queries/ });
});

t.test('422: a bad parameter, with what it accepts', async (t) => {
  const value = await ask({ source: 'library_hours', params: { branch: 'physics' } });
  t.equal(value.statusCode, 422);
  t.same(value.json(), {
    error: 'Parameter "branch" is not one of main, science, law, music', reason: 'bad_parameter', parameter: 'branch',
    accepted: { values: ['main', 'science', 'law', 'music'], max_length: 200 },
  });
  t.match((await ask({ source: 'library_hours', params: { date: 'tomorrow' } })).json(),
    { reason: 'bad_parameter', parameter: 'date', accepted: { pattern: '\\d{4}-\\d{2}-\\d{2}', example: '2026-03-02' } });
  t.match((await ask({ source: 'events', params: { days: '61' } })).json(), { parameter: 'days', accepted: { pattern: String } }, 'the whole value must match');
  t.match((await ask({ source: 'courses' })).json(), { reason: 'bad_parameter', parameter: 'subject', error: /needs the parameter "subject"/ }, 'a required one left out');
  t.match((await ask({ source: 'courses', params: { subject: 'CS', room: '1' } })).json(), { parameter: 'room', accepted: { parameters: ['subject', 'term'] } });
  t.match((await ask({ source: 'web', params: { q: 'x'.repeat(301) } })).json(), { parameter: 'q', accepted: { max_length: 300 } });
  t.equal(w.campus.requests.filter((r) => r.path.startsWith('/catalog')).length, 0, 'nothing fetched for a bad parameter');
});

t.test('502: the site fails; the body names no address', async (t) => {
  w.campus.fail('/hours', { status: 500 });
  const failed = await ask({ source: 'library_hours' });
  t.equal(failed.statusCode, 502);
  t.same(failed.json(), { error: 'The live query library_hours failed: its site answered 500', reason: 'query_failed' });
  w.campus.fail('/hours', null);
  w.campus.fail('/api/news', 'garbage');
  t.match((await ask({ source: 'news' })).json(), { reason: 'query_failed', error: /did not answer JSON/ });
  w.campus.fail('/api/news', null);
  w.campus.fail('/api/jobs', { status: 404 });
  t.match((await ask({ source: 'jobs' })).json(), { reason: 'query_failed', error: /answered 404/ });
  w.campus.fail('/api/jobs', null);
  t.notMatch(failed.body, /127\.0\.0|:\d{4,5}|northfield/, 'no host or address');
});

t.test('redirects: followed on the site; one to another origin gets the public-address checks', async (t) => {
  w.campus.redirect('/shuttles/downtown', '/shuttles/campus-loop');
  const same = await ask({ source: 'shuttles', params: { route: 'downtown' } });
  t.equal(same.statusCode, 200);
  t.equal(same.json().url, `${w.campus.url}/shuttles/campus-loop`, 'the page that answered');
  w.campus.redirect('/shuttles/airport', 'http://127.0.0.1:9/metadata');
  const away = await ask({ source: 'shuttles', params: { route: 'airport' } });
  t.equal(away.statusCode, 502);
  t.same(away.json(), { error: 'The live query shuttles failed: the address is not allowed', reason: 'query_failed' }, 'a loopback address is refused');
});

t.test('the text is cut at SUBMODULE_QUERY_MAX_CHARS', async (t) => {
  const res = await ask({ source: 'courses', params: { subject: 'CS' } });
  t.equal(res.statusCode, 200);
  t.equal(res.json().text.length, MAX_CHARS, 'the catalog of 120 CS courses is longer');
  t.match(res.json().text, /^CS courses\nNumber \| Title \| Credits \| Taught\nCS 101 \| Computing topic number 1 \| 4 credits/);
  t.ok(res.json().text.endsWith('…'));
  t.ok((await ask({ source: 'courses', params: { subject: 'MATH' } })).json().text.length < MAX_CHARS, 'a short answer is whole');
});

t.test('the web query: 503 without a search service, then the org\'s own', async (t) => {
  const none = await ask({ source: 'web', params: { q: 'campus parking' } });
  t.equal(none.statusCode, 503);
  t.match(none.json(), { reason: 'search_unconfigured' });
  const set = await w.call('PUT', '/api/dashboard/acm/secrets/search.url', w.officerToken, { value: w.search.url });
  t.equal(set.statusCode, 200, 'the org connects its search service (Integrations)');
  const res = await ask({ source: 'web', params: { q: 'campus parking' } });
  t.equal(res.statusCode, 200);
  t.same(res.json(), {
    submodule: 'campus', source: 'web', url: 'https://result1.example/campus-parking',
    text: [1, 2, 3].map((i) => `Result ${i} for campus parking\nhttps://result${i}.example/campus-parking\nSnippet ${i} about campus parking.`).join('\n\n'),
  });
  t.same(w.search.requests.at(-1), { path: '/search', q: 'campus parking', format: 'json', engines: 'duckduckgo,bing,brave' });
  w.search.setResults([]);
  t.same((await ask({ source: 'web', params: { q: 'nothing' } })).json(), { submodule: 'campus', source: 'web', url: '', text: 'No results.' });
  w.search.fail({ status: 429 });
  const failed = await ask({ source: 'web', params: { q: 'x' } });
  t.equal(failed.statusCode, 502);
  t.notMatch(failed.body, /127\.0\.0/);
  w.search.fail('garbage');
  t.match((await ask({ source: 'web', params: { q: 'x' } })).json(), { reason: 'query_failed', error: /did not answer JSON/ });
  w.search.fail(null);
  w.search.setResults(null);
});

t.test('the tool, the legacy route and the scopes', async (t) => {
  // The tool takes the knowledge module's scope knowledge:read: without that module it is not offered (knowledge.test.ts calls it).
  t.match((await w.tool('submodules.query', { submodule: 'campus', source: 'web', params: { q: 'library' } }, w.listerToken)).json(), { reason: 'unknown_tool' });
  t.notOk(w.quad.registry.tools.has('submodules.query'), 'not registered without the knowledge module');
  const legacy = await w.call('POST', '/api/campus/query', w.readerToken, { source: 'web', params: { q: 'library' } });
  t.equal(legacy.statusCode, 200);
  t.equal(legacy.json().url, 'https://result1.example/library');
  t.equal((await ask({ source: 'web', params: { q: 'x' } }, 'campus', w.managerToken)).statusCode, 403, 'submodules:manage cannot ask');
  t.equal((await ask({ source: 'web', params: {} , extra: 1 })).statusCode, 400, 'unknown body field');
});

t.test('without the knowledge module no answer is indexed', async (t) => {
  t.same(await w.sql("select count(*)::int as n from job_runs where name = 'submodules.index_result'"), [{ n: 0 }]);
});

t.test('a site that cannot be reached: 502 without its address', async (t) => {
  await w.campus.close();
  const down = await ask({ source: 'dining' });
  t.equal(down.statusCode, 502);
  t.same(down.json(), { error: 'The live query dining failed: the site could not be reached', reason: 'query_failed' });
  t.notMatch(down.body, /127\.0\.0|:\d{4,5}/);
});
