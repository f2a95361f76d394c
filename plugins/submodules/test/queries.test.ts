// Live queries of the campus submodule's default kit (ASU) against the fake campus sites, which answer in the real
// shapes (fixtures/asu), and the fake search service, without the knowledge module: every query of the kit answers
// through the route; the parameter rules (terms sent as ASU codes, choices, comma lists, one-value parameters, dates)
// with the exact 422 bodies; 404 for an unknown submodule or query; 502 naming the source when a site fails or its
// page changed shape (no address in the body); the declared header; the cut at SUBMODULE_QUERY_MAX_CHARS; the web
// query (503 without a search service, then the org's own); the legacy /api/campus/query; no tool and no indexing job
// without the knowledge module.
import t from 'tap';
import { allowOutside } from '@quad/core/testing';
import { randomBytes } from 'node:crypto';
import { arizonaDay } from '../campus/kits/asu/transforms.js';
import { startSubmodulesWorld } from './world.js';

const MAX_CHARS = 2000;
allowOutside(t); // the org's own search service is an org-given URL: fetched with the public-address checks
const w = await startSubmodulesWorld(t, { searchUrl: false, config: { SUBMODULE_QUERY_MAX_CHARS: MAX_CHARS, SECRETS_KEY: [randomBytes(32).toString('base64')] } });
const ask = (body: Record<string, unknown>, submodule = 'campus', token = w.readerToken) => w.call('POST', `/api/submodules/${submodule}/query`, token, body);
const lastRequest = () => w.campus.requests.at(-1)!;
const LEVELS = ['lower division', 'upper division', 'undergraduate', 'graduate', '100-199', '200-299', '300-399', '400-499'];
const ROUTES = ['tempe-west express', 'tempe-downtown phoenix-west', 'polytechnic-tempe', 'mercado'];

t.test('every live query of the ASU kit answers from its source', async (t) => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['courses', { term: 'Fall 2026', keywords: 'CSE 310' },
      '/catalog-microservices/api/v1/search/classes?refine=Y&campusOrOnlineSelection=A&honors=F&promod=F&searchType=all&term=2267&keywords=CSE+310',
      /^3 class sections in Fall 2026; .*\nCSE 310 Data Structures and Algorithms \| class #70112 \| M W 10:30 AM-11:45 AM \| Tempe - PSH153 \| Ruben Acuna/],
    ['course_catalog', { keywords: 'CSE 485' }, '/catalog-microservices/api/v1/search/courses?refine=Y&keywords=CSE+485',
      /^CSE 485 Computer Science Capstone Project I \| 3 credits \| general studies: L\nFirst of a two-course capstone sequence/],
    ['scholarships', { focus: 'STEM' }, '/scholarships?field_focus=55', /^Scholarship search\nSociety of Women Engineers Scholarship\n\$2,500\nDeadline: February 15$/],
    ['events', { keywords: 'yoga' }, '/feed-json', /^Live Well Stadium Yoga: Fall 2021 Series \| Sep 7 2021 \| .*Tempe campus/],
    ['news', { keywords: 'triathlon' }, '/feeds-json', /^Triathlon Sweeps Podium at Pleasant Prairie \| 09\/04\/2021-7:07am \| Sun Devil Athletics \| https:\/\/news\.asu\.edu\//],
    ['library_catalog', { keywords: 'deep learning', type: 'books' },
      '/primaws/rest/pub/pnxs?q=any%2Ccontains%2Cdeep+learning&multiFacets=facet_rtype%2Cinclude%2Cbooks&tab=LibraryCatalog&scope=MyInstitution&vid=01ASU_INST%3A01ASU&inst=01ASU_INST&lang=en&offset=0&limit=10&sort=rank&pcAvailability=false&skipDelivery=Y',
      /^2 records in the ASU Library catalog; the first 2:\nDeep learning \| Goodfellow, Ian \| 2016 \| book/],
    ['library_hours', { library: 'Hayden' }, '/api_hours_grid.php?format=json&weeks=1&systemTime=0', /^Hayden Library - ASU Faculty, Staff and Students\n {2}Sunday 2026-03-01: 10am - 2am/],
    ['study_rooms', { library: 'noble', date: '2026-09-14' }, '/r/accessible/availability?lid=1702&gid=0&zone=0&space=0&capacity=2&date=2026-09-14',
      /^Noble Library study rooms\nAvailability for 2026-09-14\nRoom \| Open times\nRoom 112 \(capacity 4\) \| 9:00am - 11:00am/],
    ['sports', { sport: 'football' }, '/sports/football/schedule', /^2026 Football Schedule\nAug 29 \(Sat\) 7:30 PM \| vs\. Wyoming/],
    ['sports_news', { sport: 'soccer' }, '/rss', /^2026-08-28 \| Soccer falls 2-1 at Texas in season opener \| Soccer \| https:\/\/thesundevils\.com\//],
    ['shuttles', { route: 'Mercado' }, '/shuttles', /^Mercado\nRuns between the Mercado and the Downtown Phoenix campus/],
    ['campus_map', { place: 'Hayden' },
      '/server/rest/services/CampusLayers/Campus_Map_Web_Layers/MapServer/find?searchText=Hayden&layers=80%2C98%2C99%2C101%2C102%2C103%2C104%2C105%2C106%2C107%2C108%2C109%2C112&searchFields=Name%2CDescription&returnGeometry=true&sr=4326&f=json',
      /^Hayden Library \(Library\): Charles Trumbull Hayden Library/],
    ['social_media', { account: 'sun devil athletics' }, '/feeds/videos.xml?channel_id=UC_G-_2azcOV9JBAmqFgERwA', /^Sun Devil Athletics on YouTube:\n2026-08-14 \| /],
    ['dining', { campus: 'Downtown Phoenix' }, '/hours-locations/downtown-phoenix', /^Dining hours: downtown-phoenix\nDining halls\nManzanita Dining Hall: 7 a\.m\. to 10 p\.m\./],
    ['jobs', {}, '/employment', /^Student employment\nSearch and apply for on-campus jobs in Workday/],
  ];
  for (const [source, params, path, text] of cases) {
    const res = await ask({ source, params });
    t.equal(res.statusCode, 200, source);
    t.match(res.json(), { submodule: 'campus', source, url: `${w.campus.url}${path}`, text }, source);
    t.notMatch(res.json().text, /<|window\.dataLayer|Arizona Board of Regents/, `${source}: no markup, scripts or page chrome`);
  }
  t.equal(cases.length + 1, (await w.call('GET', '/api/submodules/campus/queries', w.readerToken)).json().queries.length, 'every query but web (below)');
});

t.test('the class search gets the header it needs, and terms as ASU codes', async (t) => {
  for (const [term, code] of [['Fall 2026', '2267'], ['Spring 2025', '2251'], ['Fall 2024', '2247'], ['summer 2026', '2264']] as const) {
    t.equal((await ask({ source: 'courses', params: { term } })).statusCode, 200, term);
    t.match(lastRequest(), { path: '/catalog-microservices/api/v1/search/classes', query: { term: code }, authorization: 'Bearer null' }, `${term} → ${code}`);
  }
  const res = await ask({ source: 'courses', params: { term: 'Fall 2026', level: 'Upper Division, graduate', days: 'monday,WEDNESDAY', session: 'b', open_only: true } });
  t.equal(res.statusCode, 200);
  t.match(lastRequest().query, { term: '2267', level: 'upperdivision,grad', daysOfWeek: 'MON,WED', session: 'B', searchType: 'open' }, 'choices and comma lists as the API takes them');
  await ask({ source: 'course_catalog', params: { keywords: 'CSE 485', term: 'Spring 2025' } });
  t.match(lastRequest().query, { keywords: 'CSE 485', term: '2251' });
  const none = await ask({ source: 'courses', params: { term: 'Fall 2026', keywords: 'ZZZ 999' } });
  t.equal(none.json().text, 'No class sections match in Fall 2026.');
});

t.test('422: each rule refuses, with what it accepts', async (t) => {
  const refused = async (source: string, params: Record<string, unknown>, body: Record<string, unknown>) => {
    const before = w.campus.requests.length;
    const res = await ask({ source, params });
    t.equal(res.statusCode, 422, `${source} ${JSON.stringify(params)}`);
    t.same(res.json(), { reason: 'bad_parameter', ...body });
    t.equal(w.campus.requests.length, before, 'nothing fetched');
  };
  await refused('courses', {}, {
    error: 'courses needs the parameter "term": the term: Spring, Summer or Fall and the year, e.g. Fall 2026', parameter: 'term', accepted: { example: 'Fall 2026', max_length: 20 },
  });
  for (const term of ['Fall26', 'Autumn 2026', '2026 Fall']) {
    await refused('courses', { term }, {
      error: 'Parameter "term" must be a term like "Fall 2026" (Spring, Summer or Fall, then the four-digit year)', parameter: 'term', accepted: { example: 'Fall 2026', max_length: 20 },
    });
  }
  await refused('course_catalog', { keywords: 'CSE 485', term: 'Fall 1999' }, {
    error: 'Parameter "term" has the year 1999; ASU term codes cover 2000 to 2099', parameter: 'term', accepted: { example: 'Fall 2026', max_length: 20 },
  });
  await refused('courses', { term: 'Fall 2026', level: 'upper division,senior' }, {
    error: `Parameter "level" has "senior", which is not one of ${LEVELS.join(', ')}`, parameter: 'level', accepted: { values: LEVELS, many: true, max_length: 200 },
  });
  await refused('courses', { term: 'Fall 2026', days: ' , ' }, {
    error: 'Parameter "days" is an empty list', parameter: 'days',
    accepted: { values: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'], many: true, max_length: 200 },
  });
  await refused('shuttles', { route: 'mercado,polytechnic-tempe' }, {
    error: `Parameter "route" takes one value, not a list (one of ${ROUTES.join(', ')})`, parameter: 'route', accepted: { values: ROUTES, max_length: 200 },
  });
  await refused('shuttles', { route: 'downtown loop' }, {
    error: `Parameter "route" is not one of ${ROUTES.join(', ')}`, parameter: 'route', accepted: { values: ROUTES, max_length: 200 },
  });
  const dateAccepts = { pattern: '\\d{4}-\\d{2}-\\d{2}|today|tomorrow', example: '2026-09-14', max_length: 10 };
  await refused('study_rooms', { library: 'hayden', date: '2026-02-30' }, {
    error: 'Parameter "date" must be a day like 2026-09-14 (a real date), today or tomorrow', parameter: 'date', accepted: dateAccepts,
  });
  await refused('study_rooms', { library: 'hayden', date: 'next week' }, {
    error: 'Parameter "date" does not match \\d{4}-\\d{2}-\\d{2}|today|tomorrow', parameter: 'date', accepted: dateAccepts,
  });
  const campuses = ['tempe', 'downtown phoenix', 'polytechnic', 'west valley'];
  await refused('dining', { campus: 'mesa' }, { error: `Parameter "campus" is not one of ${campuses.join(', ')}`, parameter: 'campus', accepted: { values: campuses, max_length: 200 } });
  await refused('dining', {}, { error: 'dining needs the parameter "campus": the campus', parameter: 'campus', accepted: { values: campuses, max_length: 200 } });
  await refused('campus_map', { place: 'x'.repeat(101) }, { error: 'Parameter "place" is longer than 100 characters', parameter: 'place', accepted: { example: 'Hayden', max_length: 100 } });
  await refused('jobs', { type: 'work-study' }, { error: 'jobs has no parameter "type" (it takes none)', parameter: 'type', accepted: { parameters: [] } });
  await refused('web', { q: 'x'.repeat(301) }, { error: 'Parameter "q" is longer than 300 characters', parameter: 'q', accepted: { max_length: 300 } });
});

t.test('accepted forms of the rules', async (t) => {
  t.equal((await ask({ source: 'study_rooms', params: { library: 'Hayden', date: 'tomorrow' } })).statusCode, 200);
  t.match(lastRequest().query, { lid: '13858', date: arizonaDay(new Date(Date.now() + 24 * 3600 * 1000)) }, 'tomorrow, in Arizona');
  t.equal((await ask({ source: 'study_rooms', params: { library: 'west' } })).statusCode, 200);
  t.match(lastRequest().query, { lid: '1707', date: arizonaDay(new Date()) }, 'the default date: today');
  t.equal((await ask({ source: 'shuttles', params: { route: 'Tempe-West Express' } })).statusCode, 200, 'one route, any letter case');
  t.equal((await ask({ source: 'shuttles' })).json().text.split('\n\n').length, 4, 'no route: every route');
  t.equal((await ask({ source: 'social_media' })).json().url, `${w.campus.url}/feeds/videos.xml?channel_id=UC027E0kdtyo0h4lLGROg-dA`, 'the default account');
});

t.test('404: an unknown submodule or query', async (t) => {
  const submodule = await ask({ source: 'library_hours' }, 'nope');
  t.equal(submodule.statusCode, 404);
  t.match(submodule.json(), { reason: 'unknown_submodule' });
  const query = await ask({ source: 'parking' });
  t.equal(query.statusCode, 404);
  t.match(query.json(), { reason: 'unknown_query', error: /courses, course_catalog, scholarships/ });
  t.match((await ask({ source: 'events' }, 'careers')).json(), { reason: 'unknown_query', error: /no live queries/ });
});

t.test('502: a failing site or a changed page names the source, never an address', async (t) => {
  const failed = async (source: string, params: Record<string, unknown>, error: string) => {
    const res = await ask({ source, params });
    t.equal(res.statusCode, 502, source);
    t.same(res.json(), { error, reason: 'query_failed' });
    t.notMatch(res.body, /127\.0\.0|:\d{4,5}|asu\.edu/, 'no host or address');
  };
  w.campus.fail('/catalog-microservices', { status: 500 });
  await failed('courses', { term: 'Fall 2026' }, 'The live query courses failed: ASU Class Search answered 500');
  w.campus.fail('/catalog-microservices', 'garbage');
  await failed('courses', { term: 'Fall 2026' }, 'The live query courses failed: ASU Class Search answered in a shape it cannot read (the answer is not JSON); the site may have changed');
  w.campus.fail('/catalog-microservices', null);
  w.campus.set('/feed-json', { events: [] });
  await failed('events', {}, 'The live query events failed: ASU Events answered in a shape it cannot read (no "nodes" list); the site may have changed');
  w.campus.set('/sports/football/schedule', '<html><body><main><div class="s-game-card">vs. Wyoming</div></main></body></html>');
  await failed('sports', { sport: 'football' },
    'The live query sports failed: Sun Devil Athletics answered in a shape it cannot read (no schedule (sidearm-schedule-game) on the page); the site may have changed');
  w.campus.set('/server/rest/services/CampusLayers/Campus_Map_Web_Layers/MapServer/find', { error: { code: 498, message: 'Invalid token.' } });
  await failed('campus_map', { place: 'Hayden' }, 'The live query campus_map failed: the ASU campus map answered in a shape it cannot read (the map refused the search (Invalid token.)); the site may have changed');
  w.campus.fail('/employment', { status: 404 });
  await failed('jobs', {}, 'The live query jobs failed: ASU student services answered 404');
  w.campus.fail('/employment', null);
});

t.test('redirects: followed on the site; one to another origin gets the public-address checks', async (t) => {
  w.campus.redirect('/hours-locations/west-valley', '/hours-locations/tempe');
  const same = await ask({ source: 'dining', params: { campus: 'west valley' } });
  t.equal(same.statusCode, 200);
  t.equal(same.json().url, `${w.campus.url}/hours-locations/tempe`, 'the page that answered');
  w.campus.redirect('/hours-locations/polytechnic', 'http://127.0.0.1:9/metadata');
  const away = await ask({ source: 'dining', params: { campus: 'polytechnic' } });
  t.equal(away.statusCode, 502);
  t.same(away.json(), { error: 'The live query dining failed: the address is not allowed', reason: 'query_failed' }, 'a loopback address is refused');
});

t.test('the text is cut at SUBMODULE_QUERY_MAX_CHARS', async (t) => {
  w.campus.set('/employment', `<html><body><main>${Array.from({ length: 200 }, (_, i) => `<p>Student job number ${i + 1}: desk assistant</p>`).join('')}</main></body></html>`);
  const res = await ask({ source: 'jobs' });
  t.equal(res.statusCode, 200);
  t.equal(res.json().text.length, MAX_CHARS, 'a long page');
  t.match(res.json().text, /^Student job number 1: desk assistant\nStudent job number 2:/);
  t.ok(res.json().text.endsWith('…'));
  t.ok((await ask({ source: 'library_hours', params: { library: 'noble' } })).json().text.length < MAX_CHARS, 'a short answer is whole');
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
  const legacyHours = await w.call('POST', '/api/campus/query', w.readerToken, { source: 'library_hours', params: { library: 'noble' } });
  t.match(legacyHours.json(), { submodule: 'campus', source: 'library_hours', text: /^Noble Library/ }, 'the legacy route runs the ASU kit too');
  t.equal((await ask({ source: 'web', params: { q: 'x' } }, 'campus', w.managerToken)).statusCode, 403, 'submodules:manage cannot ask');
  t.equal((await ask({ source: 'web', params: {} , extra: 1 })).statusCode, 400, 'unknown body field');
});

t.test('without the knowledge module no answer is indexed', async (t) => {
  t.same(await w.sql("select count(*)::int as n from job_runs where name = 'submodules.index_result'"), [{ n: 0 }]);
});

t.test('a site that cannot be reached: 502 without its address', async (t) => {
  await w.campus.close();
  const down = await ask({ source: 'dining', params: { campus: 'tempe' } });
  t.equal(down.statusCode, 502);
  t.same(down.json(), { error: 'The live query dining failed: the site could not be reached', reason: 'query_failed' });
  t.notMatch(down.body, /127\.0\.0|:\d{4,5}/);
});
