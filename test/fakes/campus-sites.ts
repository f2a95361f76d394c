// A fake of one university's sites for the campus submodule's tests: one HTTP server on OUTSIDE_HOST (random port)
// answering every path of the campus content, so the whole submodule points at it with
// SUBMODULES_BASE_URLS=campus.*=<url>. Pages carry the chrome a real site has (navigation, header, footer, scripts),
// which readers must drop. The shared pages:
//   /about  /academics/calendar  /housing  /it-help  /services (library)
// and the live queries' endpoints:
//   /hours/<branch>?date=        HTML   /api/events?category=&days=   JSON { events }
//   /catalog/courses/<subject>   HTML   /dining/menus/<hall>?meal=     HTML
//   /scholarships?level=         HTML   /api/news?topic=              JSON { articles }
//   /shuttles/<route>            HTML   /api/jobs?type=               JSON { jobs }
//   /sports/<sport>/<view>       HTML
// A test can replace a page, make paths fail (a status, a body that is not what it should be, or no answer) and read
// the requests. Test code, not production code.
import { createServer, type ServerResponse } from 'node:http';
import { listenOutside } from './outside.js';

export type FakeCampusFailure = { status: number } | 'garbage' | 'hang';

export interface FakeCampusRequest { path: string; query: Record<string, string>; userAgent: string | undefined }

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

/** Words the seeded pages hold, for tests that look for them. */
export const CAMPUS_WORDS = {
  about: 'Northfield University was founded in 1891 on the banks of the Quill River',
  calendar: 'Spring break runs from March 9 to March 13',
  housing: 'First-year students live in Harbor Hall or Linden Hall',
  itHelp: 'Reset your NorthID password at the IT help desk in Carver Hall',
  library: 'Interlibrary loan requests arrive within five working days',
} as const;

const page = (title: string, main: string) => `<!DOCTYPE html><html><head><title>${title} | Northfield University</title>
<script>window.analytics = { track() {} };</script><style>main { color: #222 }</style></head>
<body><header><a href="/">Northfield University</a></header><nav><a href="/about">About</a> <a href="/housing">Housing</a></nav>
<main><h1>${title}</h1>${main}</main>
<footer>© Northfield University · 1 College Green, Northfield</footer></body></html>`;

const HOURS: Record<string, [string, string][]> = {
  main: [['Monday–Thursday', '7:30 am – 2:00 am'], ['Friday', '7:30 am – 9:00 pm'], ['Saturday', '10:00 am – 9:00 pm'], ['Sunday', '10:00 am – 2:00 am']],
  science: [['Monday–Friday', '8:00 am – 10:00 pm'], ['Saturday', 'closed'], ['Sunday', '12:00 pm – 10:00 pm']],
  law: [['Monday–Friday', '8:00 am – 11:00 pm'], ['Saturday–Sunday', '9:00 am – 6:00 pm']],
  music: [['Monday–Friday', '9:00 am – 5:00 pm'], ['Saturday–Sunday', 'closed']],
};

const EVENTS = [
  { title: 'Spring Career Fair', category: 'career', start: '2026-03-04T10:00:00-05:00', location: 'Field House', url: 'https://www.northfield.example/events/career-fair' },
  { title: 'Symphony Orchestra: Mahler 5', category: 'arts', start: '2026-03-06T19:30:00-05:00', location: 'Alder Concert Hall', url: 'https://www.northfield.example/events/mahler' },
  { title: 'Lecture: Rivers and Cities', category: 'academic', start: '2026-03-10T16:00:00-05:00', location: 'Carver Hall 101', url: 'https://www.northfield.example/events/rivers' },
  { title: 'Trivia Night', category: 'social', start: '2026-03-12T20:00:00-05:00', location: 'Student Union', url: null },
];

const NEWS = [
  { title: 'Northfield researchers map the Quill River delta', topic: 'research', date: '2026-02-26', summary: 'A drone survey charted 40 km of channels.', url: 'https://www.northfield.example/news/delta' },
  { title: 'New bike paths open on the east campus', topic: 'campus', date: '2026-02-24', summary: 'Three kilometres of paths link the dorms to the library.', url: 'https://www.northfield.example/news/bikes' },
];

const JOBS = [
  { title: 'Library desk assistant', type: 'work-study', department: 'Libraries', pay: '$16/hour', apply: 'https://jobs.northfield.example/1' },
  { title: 'Lab assistant, river ecology', type: 'research', department: 'Biology', pay: '$18/hour', apply: 'https://jobs.northfield.example/2' },
  { title: 'Barista, Union Café', type: 'part-time', department: 'Dining', pay: '$15/hour', apply: 'https://jobs.northfield.example/3' },
];

/** Enough CS courses that the catalog page is long (tests cut it). */
const courses = (subject: string) => Array.from({ length: subject === 'CS' ? 120 : 3 }, (_, i) =>
  `<tr><td>${subject} ${101 + i}</td><td>${subject === 'CS' ? `Computing topic number ${i + 1}` : `Course ${i + 1}`}</td><td>4 credits</td><td>Fall, Spring</td></tr>`).join('');

type Answer = { status: number; body: string | object };

function seeded(path: string, query: URLSearchParams): Answer | null {
  const parts = path.split('/').filter(Boolean);
  const html = (title: string, main: string): Answer => ({ status: 200, body: page(title, main) });
  switch (path) {
    case '/about': return html('About Northfield', `<p>${CAMPUS_WORDS.about}. Today 14,200 students study in its nine colleges.</p>`);
    case '/academics/calendar': return html('Academic calendar', `<p>Classes begin January 20. ${CAMPUS_WORDS.calendar}. Final exams end May 8.</p>`);
    case '/housing': return html('Housing', `<p>${CAMPUS_WORDS.housing}; returning students choose in February.</p>`);
    case '/it-help': return html('IT help desk', `<p>${CAMPUS_WORDS.itHelp}, weekdays 8 am to 6 pm.</p>`);
    case '/services': return html('Library services', `<p>${CAMPUS_WORDS.library}. Study rooms are booked online.</p>`);
    case '/scholarships': {
      const level = query.get('level');
      const list = [['Quill River Scholarship', 'undergraduate', '$5,000', 'April 1'], ['Graduate Research Fellowship', 'graduate', '$12,000', 'March 15']]
        .filter(([, l]) => !level || l === level);
      return html('Scholarships', `<ul>${list.map(([n, l, a, d]) => `<li>${n} (${l}): ${a}, apply by ${d}</li>`).join('')}</ul>`);
    }
    case '/api/events': {
      const category = query.get('category') ?? 'all';
      return { status: 200, body: { events: EVENTS.filter((e) => category === 'all' || e.category === category), days: Number(query.get('days') ?? 14) } };
    }
    case '/api/news': {
      const topic = query.get('topic');
      return { status: 200, body: { articles: NEWS.filter((n) => !topic || n.topic === topic) } };
    }
    case '/api/jobs': {
      const type = query.get('type');
      return { status: 200, body: { jobs: JOBS.filter((j) => !type || j.type === type) } };
    }
  }
  if (parts[0] === 'hours' && parts.length === 2 && HOURS[parts[1]!]) {
    const branch = parts[1]!;
    const date = query.get('date');
    return html(`${branch[0]!.toUpperCase()}${branch.slice(1)} Library hours`,
      `${date ? `<p>Hours for ${date}</p>` : '<p>This week</p>'}<table>${HOURS[branch]!.map(([d, h]) => `<tr><td>${d}</td><td>${h}</td></tr>`).join('')}</table>`);
  }
  if (parts[0] === 'catalog' && parts[1] === 'courses' && parts.length === 3 && /^[A-Z]{2,5}$/.test(parts[2]!)) {
    const term = query.get('term');
    return html(`${parts[2]} courses`, `${term ? `<p>Term: ${term}</p>` : ''}<table><tr><th>Number</th><th>Title</th><th>Credits</th><th>Taught</th></tr>${courses(parts[2]!)}</table>`);
  }
  if (parts[0] === 'dining' && parts[1] === 'menus' && parts.length === 3) {
    const meal = query.get('meal');
    const meals: [string, string][] = [['breakfast', 'Oatmeal, eggs, fruit'], ['lunch', 'Lentil soup, grilled cheese'], ['dinner', 'Roast chicken, rice, greens']];
    return html(`${parts[2]} dining hall`, `<ul>${meals.filter(([m]) => !meal || m === meal).map(([m, f]) => `<li>${m}: ${f}</li>`).join('')}</ul>`);
  }
  if (parts[0] === 'shuttles' && parts.length === 2) {
    return html(`${parts[1]} shuttle`, `<p>Runs today every 15 minutes from 7 am to 11 pm.</p><p>Stops: Union, Library, ${parts[1] === 'downtown' ? 'Main Street' : 'Field House'}</p>`);
  }
  if (parts[0] === 'sports' && parts.length === 3) {
    return html(`${parts[1]} ${parts[2]}`, parts[2] === 'results'
      ? '<ul><li>Feb 28: Northfield 78, Hillcrest 70</li></ul>'
      : '<ul><li>Mar 7, 7 pm: vs. Lakeside, Field House</li></ul>');
  }
  return null;
}

export async function startFakeCampus(t?: { teardown(fn: () => unknown): void }): Promise<FakeCampus> {
  const overrides = new Map<string, string | object>();
  const redirects = new Map<string, string>();
  const failures = new Map<string, FakeCampusFailure>();
  const requests: FakeCampusRequest[] = [];
  const send = (res: ServerResponse, status: number, body: string | object) => {
    const json = typeof body !== 'string';
    res.writeHead(status, { 'content-type': json ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8' });
    res.end(json ? JSON.stringify(body) : body);
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://fake');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams), userAgent: req.headers['user-agent'] });
    if (url.pathname === '/robots.txt') { res.writeHead(404); return res.end(); }
    const failure = [...failures].find(([prefix]) => url.pathname.startsWith(prefix))?.[1];
    if (failure === 'hang') return;
    if (failure === 'garbage') return send(res, 200, '<html><body>Checking your browser…</body></html>');
    if (failure) return send(res, failure.status, '<h1>Unavailable</h1>');
    if (redirects.has(url.pathname)) { res.writeHead(302, { location: redirects.get(url.pathname)! }); return res.end(); }
    if (overrides.has(url.pathname)) return send(res, 200, overrides.get(url.pathname)!);
    const answer = seeded(url.pathname, url.searchParams);
    if (!answer) return send(res, 404, '<h1>Not found</h1>');
    send(res, answer.status, answer.body);
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
