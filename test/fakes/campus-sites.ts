// A fake of Arizona State University's sites for the campus submodule's tests (its default kit, asu): one HTTP
// server on OUTSIDE_HOST (random port) answering every path the kit reads, so the whole submodule points at it with
// SUBMODULES_BASE_URLS=campus.*=<url> (the kit's paths do not collide across its sites). The live queries' endpoints
// answer in the real shapes kept in plugins/submodules/test/fixtures/asu/ (SOURCES.md there says which are real
// answers and which are reconstructions):
//   /catalog-microservices/api/v1/search/classes   class search JSON (401 without "Authorization: Bearer null")
//   /catalog-microservices/api/v1/search/courses   catalog courses JSON
//   /feed-json (events)  /feeds-json (news)  /primaws/rest/pub/pnxs (library catalog)  /api_hours_grid.php (hours)
//   /sports/<sport>/schedule (SIDEARM HTML)  /rss (athletics RSS)  /shuttles (HTML)  /feeds/videos.xml (YouTube)
//   /server/rest/services/CampusLayers/Campus_Map_Web_Layers/MapServer/find (ArcGIS JSON)
//   /scholarships  /r/accessible/availability  /hours-locations/<campus>  /employment   (HTML built here)
// and the shared pages (CAMPUS_PAGES), each with the chrome a real site has (navigation, header, footer, scripts),
// which readers must drop. A test can replace a path's answer, make paths fail (a status, a body that is not what it
// should be, or no answer) and read the requests. Test code, not production code.
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { listenOutside } from './outside.js';

export type FakeCampusFailure = { status: number } | 'garbage' | 'hang';

export interface FakeCampusRequest { path: string; query: Record<string, string>; userAgent: string | undefined; authorization: string | undefined }

export interface FakeCampus {
  /** `http://127.0.0.2:PORT`: every base of the campus submodule. */
  readonly url: string;
  /** Serve this HTML (or JSON, given an object) at a path from now on, instead of the seeded answer. */
  set(path: string, body: string | object): void;
  /** Answer a path with a 302 to `location` from now on. */
  redirect(path: string, location: string): void;
  /** Paths starting with `prefix` fail so from now on; null makes them answer again. */
  fail(prefix: string, failure: FakeCampusFailure | null): void;
  readonly requests: FakeCampusRequest[];
  close(): Promise<void>;
}

const FIXTURES = new URL('../../plugins/submodules/test/fixtures/asu/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');
const json = (name: string) => JSON.parse(fixture(name)) as unknown;

/** Words some seeded shared pages hold, for tests that look for them. */
export const CAMPUS_WORDS = {
  calendar: 'Fall semester classes begin August 20 and the last day to drop without a W is August 30',
  parking: 'A Sun Devil parking permit is bought online through My ASU Parking Portal',
  eduroam: 'Connect to eduroam with your ASURITE ID followed by @asu.edu',
  housing: 'First-year students live in residential colleges such as Manzanita Hall',
} as const;

/** The kit's shared pages (path → title and words), as the asu kit lists them (pages.ts). */
export const CAMPUS_PAGES: Record<string, [string, string]> = {
  '/academic-calendar': ['Academic calendar', CAMPUS_WORDS.calendar],
  '/final-exam-schedule': ['Final exam schedule', 'Final exams for fall run December 5 to December 11'],
  '/drop-add': ['Drop/add', 'Drop a class in My ASU before the drop/add deadline of its session'],
  '/transcripts': ['Transcripts', 'Official transcripts are ordered online'],
  '/billing-finances/deadlines': ['Payment deadlines', 'Fall tuition is due August 17'],
  '/cost/tuition-fees': ['Tuition and fees', 'Tuition is set by the Arizona Board of Regents'],
  '/financial-aid/fafsa': ['FAFSA', 'ASU\'s FAFSA school code is 001081'],
  '/faqs': ['Housing FAQs', CAMPUS_WORDS.housing],
  '/first-year-housing': ['First-year housing', 'Every first-year student lives on campus'],
  '/health': ['Health services', 'Health Services has clinics on all four campuses'],
  '/counseling': ['Counseling', 'Call EMPACT at 480-921-1006 any time'],
  '/student-unions': ['Student unions', 'The Memorial Union is open daily'],
  '/accessibility': ['Accessibility', 'Request accommodations through SAILS'],
  '/permits': ['Parking permits', CAMPUS_WORDS.parking],
  '/transit-passes': ['Transit passes', 'The U-Pass rides Valley Metro buses and light rail'],
  '/police': ['ASU Police', 'Dial 911 in an emergency'],
  '/services/campus-it-resources/wifi/eduroam': ['eduroam', CAMPUS_WORDS.eduroam],
  '/tempe': ['Tempe campus', 'The Tempe campus sits beside Tempe Town Lake'],
  '/downtown-phoenix': ['Downtown Phoenix campus', 'The Downtown Phoenix campus is on the light rail'],
  '/polytechnic-campus': ['Polytechnic campus', 'The Polytechnic campus is in Mesa'],
  '/west-valley': ['West Valley campus', 'The West Valley campus is in Glendale'],
  '/f-1j-1-students/maintaining-status': ['Maintaining status', 'F-1 students enroll full time each fall and spring'],
  '/channels/career-internship-fairs/': ['Career fairs', 'The fall career and internship fair is in September'],
  '/advising': ['Advising', 'Find your advisor in My ASU'],
  '/policies/facilities-use': ['Library facilities use', 'University and campus needs take precedence over requests from external groups'],
  '/meal-plans/meal-plan-faq': ['Meal plan FAQ', 'Meal plans carry M&G dollars'],
  '/about/facts-and-figures': ['Facts and figures', 'ASU enrolls more than 180,000 students'],
  '/about/rankings': ['Rankings', 'ASU is ranked first in innovation'],
};

const page = (title: string, main: string) => `<!DOCTYPE html><html><head><title>${title} | Arizona State University</title>
<script>window.dataLayer = [];</script><style>main { color: #191919 }</style></head>
<body><header><a href="/">Arizona State University</a></header><nav><a href="/about">About</a> <a href="/admission">Admission</a></nav>
<main><h1>${title}</h1>${main}</main>
<footer>© Arizona Board of Regents</footer></body></html>`;

const SCHOLARSHIPS: [string, string, string, string][] = [
  ['Society of Women Engineers Scholarship', '55', '$2,500', 'Deadline: February 15'],
  ['Flinn Foundation Scholarship', '48', '$5,000', 'Deadline: October 15'],
];

const STUDY_ROOMS: Record<string, string> = { 13858: 'Hayden Library', 1702: 'Noble Library', 1703: 'Fletcher Library', 1707: 'West Valley', 1704: 'Polytechnic Library' };

type Answer = { status: number; body: string | object; type?: string };

function seeded(path: string, query: URLSearchParams, authorization: string | undefined): Answer | null {
  const html = (title: string, main: string): Answer => ({ status: 200, body: page(title, main) });
  const xml = (body: string): Answer => ({ status: 200, body, type: 'application/xml; charset=utf-8' });
  if (CAMPUS_PAGES[path]) return html(CAMPUS_PAGES[path][0], `<p>${CAMPUS_PAGES[path][1]}.</p>`);
  const parts = path.split('/').filter(Boolean);
  switch (path) {
    case '/catalog-microservices/api/v1/search/classes': {
      if (authorization !== 'Bearer null') return { status: 401, body: { error: 'Unauthorized' } };
      const keywords = (query.get('keywords') ?? '').toUpperCase();
      if (!keywords || keywords.includes('CSE 310') || keywords === 'CSE') return { status: 200, body: json('class-search-classes.json') as object };
      return { status: 200, body: { classes: [], aggregations: {}, scrollId: null, total: { value: 0, relation: 'eq' } } };
    }
    case '/catalog-microservices/api/v1/search/courses':
      if (authorization !== 'Bearer null') return { status: 401, body: { error: 'Unauthorized' } };
      return { status: 200, body: (query.get('keywords') ?? '').includes('485') ? json('class-search-courses.json') as object : [] };
    case '/feed-json': return { status: 200, body: json('events-feed-json.json') as object };
    case '/feeds-json': return { status: 200, body: json('news-feeds-json.json') as object };
    case '/primaws/rest/pub/pnxs': return { status: 200, body: json('primo-pnxs.json') as object };
    case '/api_hours_grid.php': return { status: 200, body: json('libcal-hours-grid.json') as object };
    case '/rss': return xml(fixture('sidearm-rss.xml'));
    case '/shuttles': return { status: 200, body: fixture('cfo-shuttles.html') };
    case '/feeds/videos.xml': {
      const feed = fixture('youtube-asu-feed.xml');
      return xml(query.get('channel_id') === 'UC_G-_2azcOV9JBAmqFgERwA' ? feed.replaceAll('Arizona State University', 'Sun Devil Athletics') : feed);
    }
    case '/server/rest/services/CampusLayers/Campus_Map_Web_Layers/MapServer/find':
      return { status: 200, body: /hayden/i.test(query.get('searchText') ?? '') ? json('arcgis-find-hayden.json') as object : { results: [] } };
    case '/scholarships': {
      const focus = query.get('field_focus');
      const list = SCHOLARSHIPS.filter(([, f]) => !focus || f === focus);
      return html('Scholarship search', `<div class="view-content">${list.map(([n, , a, d]) => `<div class="views-row"><h3>${n}</h3><p>${a}</p><p>${d}</p></div>`).join('')}</div>`);
    }
    case '/r/accessible/availability': {
      const library = STUDY_ROOMS[query.get('lid') ?? ''];
      if (!library) return { status: 404, body: '<h1>Not found</h1>' };
      return html(`${library} study rooms`, `<p>Availability for ${query.get('date')}</p><table><tr><th>Room</th><th>Open times</th></tr>`
        + '<tr><td>Room 112 (capacity 4)</td><td>9:00am - 11:00am, 3:00pm - 5:00pm</td></tr><tr><td>Room 214 (capacity 6)</td><td>1:00pm - 2:00pm</td></tr></table>');
    }
    case '/employment':
      return html('Student employment', '<p>Search and apply for on-campus jobs in Workday (Find Jobs - Students).</p><p>Federal Work-Study jobs are marked in the listing.</p>');
  }
  if (parts[0] === 'sports' && parts[2] === 'schedule' && parts.length === 3) {
    if (parts[1] === 'football') return { status: 200, body: fixture('sidearm-football-schedule.html') };
    return { status: 200, body: '<html><body><main><div class="sidearm-schedule"><div class="sidearm-schedule-games-container"><ul></ul></div></div></main></body></html>' };
  }
  if (parts[0] === 'hours-locations' && parts.length === 2) {
    return html(`Dining hours: ${parts[1]}`, '<h2>Dining halls</h2><ul><li>Manzanita Dining Hall: 7 a.m. to 10 p.m.</li><li>Barrett Dining Center: 7 a.m. to 8 p.m.</li></ul>');
  }
  return null;
}

export async function startFakeCampus(t?: { teardown(fn: () => unknown): void }): Promise<FakeCampus> {
  const overrides = new Map<string, string | object>();
  const redirects = new Map<string, string>();
  const failures = new Map<string, FakeCampusFailure>();
  const requests: FakeCampusRequest[] = [];
  const send = (res: ServerResponse, status: number, body: string | object, type?: string) => {
    const isJson = typeof body !== 'string';
    res.writeHead(status, { 'content-type': type ?? (isJson ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8') });
    res.end(isJson ? JSON.stringify(body) : body);
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://fake');
    const authorization = req.headers.authorization;
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams), userAgent: req.headers['user-agent'], authorization });
    if (url.pathname === '/robots.txt') { res.writeHead(404); return res.end(); }
    const failure = [...failures].find(([prefix]) => url.pathname.startsWith(prefix))?.[1];
    if (failure === 'hang') return;
    if (failure === 'garbage') return send(res, 200, '<html><body>Checking your browser…</body></html>');
    if (failure) return send(res, failure.status, '<h1>Unavailable</h1>');
    if (redirects.has(url.pathname)) { res.writeHead(302, { location: redirects.get(url.pathname)! }); return res.end(); }
    if (overrides.has(url.pathname)) return send(res, 200, overrides.get(url.pathname)!);
    const answer = seeded(url.pathname, url.searchParams, authorization);
    if (!answer) return send(res, 404, '<h1>Not found</h1>');
    send(res, answer.status, answer.body, answer.type);
  });
  const { origin, close } = await listenOutside(server, t);
  return {
    url: origin,
    set: (path, body) => { overrides.set(path, body); },
    redirect: (path, location) => { redirects.set(path, location); },
    fail: (prefix, failure) => { if (failure) failures.set(prefix, failure); else failures.delete(prefix); },
    requests,
    close,
  };
}
