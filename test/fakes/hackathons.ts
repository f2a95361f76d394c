// A fake of the three public hackathon listings for feed tests: one HTTP server on OUTSIDE_HOST (random port)
// answering each service's real path and shape, so the same origin is every listing's base URL:
//   listing_a, Hack Club        GET /api/events/upcoming            → [event]
//   listing_b, Euro-Hackathons  GET /api/hackathons?status=upcoming → { data: [event] } (events of that status)
//   listing_c, Hackalist        GET /api/1.0/<YYYY>/<MM>.json       → { "<Month>": [event] }, or 404 (an HTML page,
//                                                                     as GitHub Pages answers) for a month not set
// The shapes are the services' own (plugins/feeds/hackathons/*.ts cite where each was read; real samples are in
// plugins/feeds/test/fixtures/hackathons/). Seeded with events laid out around 2026-03-01 (see HACKATHON_SEEDS); a
// test can replace them, make one listing fail (a status, a garbage body, or no answer at all) and read the
// requests. Test code, not production code.
import { createServer, type ServerResponse } from 'node:http';
import { listenOutside } from './outside.js';

export type FakeListing = 'listing_a' | 'listing_b' | 'listing_c';
/** How a listing fails: this status (JSON error body), 200 with a body that is not JSON, or never answering. */
export type FakeListingFailure = { status: number } | 'garbage' | 'hang';

export interface FakeListingRequest {
  listing: FakeListing;
  method: string;
  path: string;
  /** Every query parameter with all its values. */
  query: Record<string, string[]>;
}

export interface FakeHackathons {
  /** `http://127.0.0.2:PORT`: the base URL of all three listings. */
  readonly url: string;
  /** The base URL per listing (all the same origin), shaped like hackathonSourceUrls(). */
  readonly urls: Record<FakeListing, string>;
  /** Hack Club events, as its API sends them. */
  setHackClub(events: unknown[]): void;
  /** Euro-Hackathons rows; the fake answers those whose `status` is the request's (default upcoming). */
  setEuroHackathons(rows: unknown[]): void;
  /** One Hackalist month file (`'2026/03'`), as the file holds it; null removes it (404). */
  setHackalistMonth(month: string, file: unknown): void;
  /** From now on this listing fails so; null makes it answer again. */
  fail(listing: FakeListing, failure: FakeListingFailure | null): void;
  readonly requests: FakeListingRequest[];
  close(): Promise<void>;
}

const hackClubEvent = (id: string, name: string, website: string, start: string, end: string, place: [city: string, state: string, country: string, code: string], mode: 'in_person' | 'online' | 'hybrid') => ({
  id, name, website, start, end, createdAt: '2026-01-10T10:00:00.000Z', logo: '', banner: '',
  city: place[0], state: place[1], country: place[2], countryCode: place[3], latitude: '', longitude: '',
  virtual: mode === 'online', hybrid: mode === 'hybrid', mlhAssociated: false, hack_club_event: false, apac: false,
});

const euroRow = (id: string, name: string, url: string, start: string, end: string | null, city: string | null, country: string | null, status = 'upcoming') => ({
  id, name, city, country_code: country, date_start: start, date_end: end, topics: ['AI'], notes: null, url, status, is_new: false,
});

const hackalistEvent = (title: string, url: string, startDate: string, endDate: string, year: string, city: string) => ({
  title, url, startDate, endDate, year, city, host: 'Community', length: '24', size: 'unknown', travel: 'no', prize: 'yes',
  highSchoolers: 'yes', cost: 'free', facebookURL: '', twitterURL: '', notes: '',
});

/**
 * The seeded listings. With `now` 2026-03-01T12:00Z: one event started this morning, one yesterday, one too far
 * (June), three events listed by two sources under other spellings, and malformed items in each listing.
 */
export const HACKATHON_SEEDS = {
  hackClub: [
    hackClubEvent('recHackPenn', 'Hack Pennsylvania', 'https://hackpenn.com', '2026-03-14T14:00:00.000Z', '2026-03-15T20:00:00.000Z', ['State College', 'PA', 'United States', 'US'], 'in_person'),
    hackClubEvent('recMorning', 'Morning Hack', 'https://morninghack.dev', '2026-03-01T08:00:00.000Z', '2026-03-01T20:00:00.000Z', ['Austin', 'TX', 'United States', 'US'], 'hybrid'),
    { ...hackClubEvent('recClimate', 'Global Climate Hack', 'https://climatehack.io', '2026-04-18T15:00:00.000Z', '2026-04-19T21:00:00.000Z', ['', '', '', ''], 'online'), city: null, state: null, country: null, countryCode: null },
    hackClubEvent('recValley', 'Hack the Valley', 'https://hackthevalley.io', '2026-05-02T13:00:00.000Z', '2026-05-03T18:00:00.000Z', ['Toronto', 'ON', 'Canada', 'CA'], 'in_person'),
    hackClubEvent('recSummer', 'Summer Shipyard', 'https://shipyard.hackclub.com', '2026-06-20T15:00:00.000Z', '2026-06-21T15:00:00.000Z', ['Burlington', 'VT', 'United States', 'US'], 'in_person'),
    // Malformed: no website; no usable start; not an object.
    hackClubEvent('recNoSite', 'No Site Hack', '', '2026-03-20T15:00:00.000Z', '2026-03-21T15:00:00.000Z', ['', '', '', ''], 'online'),
    hackClubEvent('recNoStart', 'Someday Hack', 'https://someday.dev', 'TBD', '', ['', '', '', ''], 'in_person'),
    null,
  ],
  euroHackathons: [
    euroRow('0b7e7c2a-1d7e-4a59-9a43-2f0c1f3f4a01', 'Spring Build', 'https://lu.ma/spring-build', '2026-03-02T00:00:00+00:00', '2026-03-04T00:00:00+00:00', 'Berlin', 'DE'),
    euroRow('0b7e7c2a-1d7e-4a59-9a43-2f0c1f3f4a02', 'Build With Gemma', 'https://lu.ma/build-with-gemma', '2026-03-20', '2026-03-22', 'Munich', 'DE'),
    euroRow('0b7e7c2a-1d7e-4a59-9a43-2f0c1f3f4a03', 'Water Data Challenge', 'https://water-data.eu/', '2026-03-28T09:00:00+00:00', '2026-04-02T18:00:00+00:00', 'Lisbon', 'PT'),
    euroRow('0b7e7c2a-1d7e-4a59-9a43-2f0c1f3f4a04', '  GLOBAL   CLIMATE HACK ', 'https://lu.ma/global-climate-hack', '2026-04-18T00:00:00+00:00', null, null, null),
    euroRow('0b7e7c2a-1d7e-4a59-9a43-2f0c1f3f4a05', 'Yesterday Hack', 'https://lu.ma/yesterday-hack', '2026-02-28T10:00:00+00:00', '2026-03-01T10:00:00+00:00', 'Milan', 'IT'),
    // Over already: answered only to a request for status=past.
    euroRow('0b7e7c2a-1d7e-4a59-9a43-2f0c1f3f4a06', 'Winter Jam', 'https://lu.ma/winter-jam', '2026-02-01T09:00:00+00:00', '2026-02-02T18:00:00+00:00', 'Oslo', 'NO', 'past'),
    // Malformed: no name; a start that is not a date; a link that is not http(s).
    euroRow('0b7e7c2a-1d7e-4a59-9a43-2f0c1f3f4a07', '', 'https://lu.ma/untitled', '2026-03-10', null, 'Paris', 'FR'),
    euroRow('0b7e7c2a-1d7e-4a59-9a43-2f0c1f3f4a08', 'Dates To Be Announced', 'https://lu.ma/tba', 'TBA', null, 'Rome', 'IT'),
    euroRow('0b7e7c2a-1d7e-4a59-9a43-2f0c1f3f4a09', 'Script Link', 'javascript:alert(1)', '2026-03-10', null, 'Vienna', 'AT'),
  ],
  hackalist: {
    '2026/03': {
      March: [
        hackalistEvent('Warmup Hack', 'https://warmuphack.dev/', 'March 10', 'March 11', '2026', 'Online'),
        hackalistEvent('Build with Gemma', 'https://gemma-sprint.example/', '21 March', '21 March', '2026', 'Bengaluru, India '),
        // Malformed: a url without its scheme; a start that is not a day.
        hackalistEvent('Slugless', 'slugless.example/', 'March 15', 'March 16', '2026', 'Virtual'),
        hackalistEvent('Soon Hack', 'https://soonhack.example/', 'soon', '', '2026', 'Online'),
      ],
    },
    '2026/05': {
      May: [hackalistEvent('hack the  valley', 'https://hackthevalley.io/', 'May 2', '', '2026', '')],
    },
  } as Record<string, unknown>,
} as const;

type Teardown = { teardown(fn: () => unknown): void };

const HACKALIST_FILE = /^\/api\/1\.0\/(\d{4}\/\d{2})\.json$/;

function listingOf(path: string): FakeListing | null {
  if (path === '/api/events/upcoming') return 'listing_a';
  if (path === '/api/hackathons') return 'listing_b';
  return HACKALIST_FILE.test(path) ? 'listing_c' : null;
}

/** What a bot wall sends: 200, a JSON content type, and HTML. */
const GARBAGE = '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>';
/** What GitHub Pages sends for a file that does not exist. */
const PAGES_404 = '<!DOCTYPE html><html><head><title>Page not found · GitHub Pages</title></head><body>404 File not found</body></html>';

export async function startFakeHackathons(t?: Teardown): Promise<FakeHackathons> {
  let hackClub: unknown[] = [...HACKATHON_SEEDS.hackClub];
  let euro: unknown[] = [...HACKATHON_SEEDS.euroHackathons];
  const months = new Map<string, unknown>(Object.entries(HACKATHON_SEEDS.hackalist));
  const failures = new Map<FakeListing, FakeListingFailure>();
  const requests: FakeListingRequest[] = [];

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };

  const answer = (listing: FakeListing, url: URL, res: ServerResponse) => {
    if (listing === 'listing_a') return json(res, 200, hackClub);
    if (listing === 'listing_b') {
      const status = url.searchParams.get('status') ?? 'upcoming';
      return json(res, 200, { data: euro.filter((row) => (row as { status?: unknown } | null)?.status === status) });
    }
    const month = HACKALIST_FILE.exec(url.pathname)![1]!;
    if (!months.has(month)) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(PAGES_404);
    }
    return json(res, 200, months.get(month));
  };

  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url!, 'http://fake');
      const listing = listingOf(url.pathname);
      if (!listing) return json(res, 404, { error: 'not found' });
      const query: Record<string, string[]> = {};
      for (const key of new Set(url.searchParams.keys())) query[key] = url.searchParams.getAll(key);
      requests.push({ listing, method: req.method!, path: url.pathname, query });
      if (req.method !== 'GET') return json(res, 405, { error: 'method not allowed' });

      const failure = failures.get(listing);
      if (failure === 'hang') return; // the socket stays open until close()
      if (failure === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(GARBAGE);
      }
      if (failure) return json(res, failure.status, { error: 'fake failure' });
      answer(listing, url, res);
    });
  });
  const { origin, close } = await listenOutside(server, t);

  return {
    url: origin,
    urls: { listing_a: origin, listing_b: origin, listing_c: origin },
    setHackClub: (events) => { hackClub = [...events]; },
    setEuroHackathons: (rows) => { euro = [...rows]; },
    setHackalistMonth: (month, file) => { if (file === null) months.delete(month); else months.set(month, file); },
    fail: (listing, failure) => { if (failure) failures.set(listing, failure); else failures.delete(listing); },
    requests,
    close,
  };
}
