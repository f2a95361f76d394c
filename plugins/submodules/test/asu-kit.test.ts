// The ASU kit's own rules and readers, without an app: its transforms (a term "Fall 2026" is ASU's code 2267; a day in
// Arizona time), each parser on the answers kept in fixtures/asu (real ones and reconstructions: SOURCES.md there),
// each parser refusing an answer of another shape (what a changed page looks like) with a message naming what is
// missing, bounded input, and the fake campus serving every shared page the kit lists.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { startFakeCampus } from '@quad/core/testing';
import { ParamRefused, type ParserInput } from 'quad-submodule-kit';
import asu from '../campus/kits/asu/index.js';
import { arizonaDate, asuTerm } from '../campus/kits/asu/transforms.js';
import { parseAnswer, PARSER_MAX_CHARS } from '../queries/parse.js';
import { UnexpectedAnswer } from '../queries/text.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/asu/${name}`, import.meta.url), 'utf8');
const NOW = new Date('2026-09-01T05:00:00Z'); // 2026-08-31, 10 p.m. in Arizona
const parse = (parser: string, format: ParserInput['format'], text: string, params: Record<string, string> = {}, sent = params) =>
  parseAnswer(asu.code!.parsers![parser]!, format, text, { params, sent, url: 'https://search.lib.asu.edu/primaws/rest/pub/pnxs?q=x', now: NOW });

t.test('terms: ASU\'s code is 2, the year\'s last two digits, then 1 spring, 4 summer, 7 fall', async (t) => {
  const code = (v: string) => asuTerm(v, { now: NOW });
  t.same(['Fall 2026', 'Spring 2025', 'Fall 2024', 'Summer 2026', 'fall 2026', 'SPRING  2030'].map(code), ['2267', '2251', '2247', '2264', '2267', '2301']);
  for (const bad of ['Fall26', 'Autumn 2026', '2026 Fall', 'Fall 2026 B', 'Fall 20266', '']) {
    t.throws(() => code(bad), new ParamRefused('must be a term like "Fall 2026" (Spring, Summer or Fall, then the four-digit year)'), bad);
  }
  t.throws(() => code('Fall 1999'), new ParamRefused('has the year 1999; ASU term codes cover 2000 to 2099'));
});

t.test('dates: a real day, or today and tomorrow in Arizona time', async (t) => {
  const day = (v: string) => arizonaDate(v, { now: NOW });
  t.same(['today', 'Tomorrow', '2026-02-28', '2028-02-29'].map(day), ['2026-08-31', '2026-09-01', '2026-02-28', '2028-02-29'], 'UTC-7 all year: still August 31');
  for (const bad of ['2026-02-30', '2026-13-01', 'yesterday', '09/14/2026']) {
    t.throws(() => day(bad), new ParamRefused('must be a day like 2026-09-14 (a real date), today or tomorrow'), bad);
  }
});

t.test('each parser reads its fixture', async (t) => {
  t.equal(await parse('class_search', 'json', fixture('class-search-classes.json'), { term: 'Fall 2026', keywords: 'CSE 310' }), [
    '3 class sections in Fall 2026; enroll with the class number in My ASU.',
    'CSE 310 Data Structures and Algorithms | class #70112 | M W 10:30 AM-11:45 AM | Tempe - PSH153 | Ruben Acuna | 3 credits | 11 of 150 seats open',
    'CSE 310 Data Structures and Algorithms | class #70113 | T Th 1:30 PM-2:45 PM | Tempe - COOR170 | Yinong Chen, Ruben Acuna | 3 credits | 0 of 120 seats open (closed)',
    'CSE 310 Data Structures and Algorithms | class #81540 | no set meeting time | ASU Online | instructor TBA | 3 credits | 112 of 200 seats open | session B (second half)',
  ].join('\n'));
  t.equal(await parse('course_catalog', 'json', fixture('class-search-courses.json'), { keywords: 'CSE 485' }),
    'CSE 485 Computer Science Capstone Project I | 3 credits | general studies: L\nFirst of a two-course capstone sequence. Students work in teams on a software project for an industry or research sponsor: requirements, design, and the first release.');
  const events = await parse('asu_events', 'json', fixture('events-feed-json.json'), { campus: 'downtown phoenix' }, { campus: 'Downtown Phoenix campus' });
  t.equal(events.split('\n').length, 3, 'the real feed: the Downtown Phoenix events');
  t.equal(events.split('\n')[0], 'Vault Gallery Photography Exhibit | Sep 6 2021 | Downtown Phoenix campus Library, Downtown Phoenix campus | Exhibit | https://asuevents.asu.edu/content/vault-gallery-photography-exhibit');
  t.match(await parse('asu_events', 'json', fixture('events-feed-json.json'), { keywords: 'career advising' }),
    /^Virtual Drop-In Career and Internship Advising \| Sep 6 2021 - 1:00pm to Sep 6 2021 - 3:00pm \| .*Online \| Info session \| https:\/\/asuevents\.asu\.edu\//);
  t.equal(await parse('asu_events', 'json', fixture('events-feed-json.json'), { keywords: 'quidditch' }), 'No upcoming ASU events match.');
  const news = await parse('asu_news', 'json', fixture('news-feeds-json.json'), { keywords: 'magnets' });
  t.equal(news, 'ASU researchers bring a new twist to 2D magnets | 09/03/2021-1:38pm | Department of Physics, The College of Liberal Arts and Sciences | https://news.asu.edu/20210903-asu-researchers-bring-new-twist-2d-magnets\n'
    + 'A team of researchers from ASU shows in a recent manuscript published in Nano Letters that twisting two-dimensional magnets can lead to new magnetic phenomena.');
  t.notMatch(await parse('asu_news', 'json', fixture('news-feeds-json.json')), /\]\]>/, 'the feed\'s CDATA ends are dropped');
  t.equal(await parse('primo_search', 'json', fixture('primo-pnxs.json'), { keywords: 'deep learning' }), [
    '2 records in the ASU Library catalog; the first 2:',
    'Deep learning | Goodfellow, Ian | 2016 | book | Cambridge, Massachusetts : The MIT Press | https://search.lib.asu.edu/discovery/fulldisplay?docid=alma991017540989703841&vid=01ASU_INST:01ASU',
    'Dive into deep learning | Zhang, Aston | 2023 | book | Cambridge University Press | https://search.lib.asu.edu/discovery/fulldisplay?docid=alma991058812345603841&vid=01ASU_INST:01ASU',
  ].join('\n'));
  const hours = await parse('libcal_hours', 'json', fixture('libcal-hours-grid.json'));
  t.match(hours, /^Hayden Library - ASU Faculty, Staff and Students\n {2}Sunday 2026-03-01: 10am - 2am\n {2}Monday 2026-03-02: 24 Hours\n/);
  t.notMatch(hours, /mkrspace/, 'departments only when asked for');
  t.match(await parse('libcal_hours', 'json', fixture('libcal-hours-grid.json'), { library: 'noble' }), /^Noble Library - ASU Faculty, Staff and Students\n(.*\n){6} {2}Saturday 2026-03-07: Closed$/);
  t.equal(await parse('sidearm_schedule', 'html', fixture('sidearm-football-schedule.html'), { sport: 'football' }), [
    '2026 Football Schedule',
    'Aug 29 (Sat) 7:30 PM | vs. Wyoming | Tempe, Ariz. Mountain America Stadium | W, 48-7',
    'Sep 5 (Sat) TBA | at Texas A&M | College Station, Texas Kyle Field',
    'Sep 12 (Sat) 7:00 PM | vs. #18 BYU | Tempe, Ariz. Mountain America Stadium',
  ].join('\n'));
  t.equal(await parse('sidearm_news', 'xml', fixture('sidearm-rss.xml'), { sport: 'football', keywords: 'texas' }, { sport: 'football' }),
    '2026-09-01 | Football week one depth chart against Texas A&M | Football | https://thesundevils.com/news/2026/9/1/football-depth-chart-texas-am');
  t.equal(await parse('shuttle_routes', 'html', fixture('cfo-shuttles.html'), { route: 'polytechnic-tempe' }, { route: 'Polytechnic-Tempe' }),
    'Polytechnic-Tempe\nWeekdays from 6:15 a.m. to 10:45 p.m., every 30 minutes.\n- Polytechnic campus: Student Union\n- Tempe campus: Lot 59');
  t.equal((await parse('shuttle_routes', 'html', fixture('cfo-shuttles.html'))).split('\n\n').length, 4, 'every route, not the tracker section');
  t.equal(await parse('arcgis_find', 'json', fixture('arcgis-find-hayden.json'), { place: 'Hayden' }), [
    'Hayden Library (Library): Charles Trumbull Hayden Library: study spaces, the mkrspace and the Map and Geospatial Hub entrance. 300 E. Orange Mall, Tempe. Map: https://www.google.com/maps/search/?api=1&query=33.419521,-111.934906',
    'Starbucks at Hayden Library (Dining): Coffee on the ground floor of Hayden Library. Map: https://www.google.com/maps/search/?api=1&query=33.419380,-111.935120',
  ].join('\n'), 'one line per distinct place');
  t.equal(await parse('youtube_feed', 'xml', fixture('youtube-asu-feed.xml'), { account: 'asu', keywords: 'heat' }),
    'Arizona State University on YouTube:\n2026-08-07 | How ASU researchers map urban heat | https://www.youtube.com/watch?v=Zx9yWvUtSrQ | Sensors on carts measure the heat people feel, street by street, in Phoenix and Tempe.');
});

t.test('an answer of another shape is refused, naming what is missing', async (t) => {
  const refused = async (parser: string, format: ParserInput['format'], text: string, message: string) =>
    t.rejects(parse(parser, format, text, { term: 'Fall 2026', sport: 'football', place: 'x' }), new UnexpectedAnswer(message), parser);
  await refused('class_search', 'json', '{"error":"maintenance"}', 'no "classes" list');
  await refused('class_search', 'json', '{"classes":[{"id":1}]}', 'a class without its "CLAS" fields');
  await refused('class_search', 'json', '<html>Sign in</html>', 'the answer is not JSON');
  await refused('course_catalog', 'json', '{"courses":[]}', 'not a list of courses');
  await refused('asu_events', 'json', '{"events":[]}', 'no "nodes" list');
  await refused('asu_news', 'json', '[]', 'no "nodes" list');
  await refused('primo_search', 'json', '{"beaconO22":""}', 'no "docs" list');
  await refused('libcal_hours', 'json', '{"error":"iid"}', 'no "locations" list');
  await refused('sidearm_schedule', 'html', '<html><body><div class="s-game-card">Wyoming</div></body></html>', 'no schedule (sidearm-schedule-game) on the page');
  await refused('sidearm_news', 'xml', '<html><body>Not found</body></html>', 'not an RSS feed (no channel)');
  await refused('shuttle_routes', 'html', '<main><h2>Parking</h2></main>', 'no shuttle route headings');
  await refused('arcgis_find', 'json', '{"error":{"code":400,"message":"Invalid or missing input parameters."}}', 'the map refused the search (Invalid or missing input parameters.)');
  await refused('arcgis_find', 'json', '{"features":[]}', 'no "results" list');
  await refused('youtube_feed', 'xml', '<rss><channel/></rss>', 'not an Atom feed');
  t.equal(await parse('sidearm_schedule', 'html', '<div class="sidearm-schedule"><ul></ul></div>', { sport: 'hockey' }), 'No hockey games are listed yet.', 'an empty season is not a changed page');
});

t.test('bounded: a parser reads capped text, and its own failure is a shape error', async (t) => {
  await t.rejects(parse('class_search', 'json', ' '.repeat(PARSER_MAX_CHARS + 1)), new UnexpectedAnswer(`the answer is longer than ${PARSER_MAX_CHARS} characters`));
  const broken = () => { throw new TypeError('x is undefined'); };
  await t.rejects(parseAnswer(broken, 'text', 'x', { params: {}, sent: {}, url: 'https://x.example', now: NOW }), new UnexpectedAnswer('its reader failed on it: TypeError'));
  await t.rejects(parseAnswer(() => 42 as unknown as string, 'text', 'x', { params: {}, sent: {}, url: 'https://x.example', now: NOW }), new UnexpectedAnswer('its reader gave no text'));
  const deep = `${'<div>'.repeat(20_000)}x${'</div>'.repeat(20_000)}`;
  await t.rejects(parse('sidearm_schedule', 'html', deep, { sport: 'football' }), UnexpectedAnswer, 'deep markup is read, then refused');
});

t.test('the fake campus serves every shared page of the kit', async (t) => {
  const fake = await startFakeCampus(t);
  for (const page of asu.pages!) {
    const path = page.url.replace(/^\{[a-z_]+\}/, '');
    const res = await fetch(`${fake.url}${path}`);
    t.equal(res.status, 200, path);
  }
});

t.test('a transform that fails otherwise than by refusing is the query\'s failure, not the caller\'s', async (t) => {
  const { wireParams } = await import('../queries/params.js');
  const query = { name: 'q', title: 'Q', description: 'q', params: { term: { description: 't', transform: 'broken' } }, source: { kind: 'search' as const, query: '{term}' } };
  t.throws(() => wireParams(query, { term: 'Fall 2026' }, { transforms: { broken: () => { throw new TypeError('bug'); } } }, NOW),
    { statusCode: 502, reason: 'query_failed', message: 'The live query q failed: its rule for the parameter "term" failed' });
  t.same(wireParams(query, { term: 'Fall 2026' }, { transforms: { broken: asuTerm } }, NOW), { term: '2267' });
});
