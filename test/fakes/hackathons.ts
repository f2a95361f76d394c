// A fake of the three public hackathon listings for feed tests: one HTTP server on OUTSIDE_HOST (random port)
// answering each service's real path and shape, so the same origin is every listing's base URL:
//   listing_a, Hack Club    GET  /api/events/upcoming     → [event]
//   listing_b, Devpost      GET  /api/hackathons?status[]=…&per_page=…&page=…  → { hackathons, meta }
//   listing_c, Devfolio     POST /api/search/hackathons {type, from, size}    → { hits: { total, hits: [{_source}] } }
// Seeded with events laid out around 2026-03-01 (see HACKATHON_SEEDS); a test can replace them, make one listing
// fail (a status, a garbage body, or no answer at all) and read the requests. Test code, not production code.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOutside } from './outside.js';

export type FakeListing = 'listing_a' | 'listing_b' | 'listing_c';
/** How a listing fails: this status (JSON error body), 200 with a body that is not JSON, or never answering. */
export type FakeListingFailure = { status: number } | 'garbage' | 'hang';
export type DevfolioSearchType = 'upcoming' | 'application_open';

export interface FakeListingRequest {
  listing: FakeListing;
  method: string;
  path: string;
  /** Every query parameter with all its values (`status[]` repeats). */
  query: Record<string, string[]>;
  /** The parsed JSON body of a POST, else null. */
  body: unknown;
}

export interface FakeHackathons {
  /** `http://127.0.0.2:PORT`: the base URL of all three listings. */
  readonly url: string;
  /** The base URL per listing (all the same origin), shaped like hackathonSourceUrls(). */
  readonly urls: Record<FakeListing, string>;
  /** Hack Club events, as its API sends them. */
  setHackClub(events: unknown[]): void;
  /** Devpost list items; the fake filters them by `open_state` against the request's `status[]`. */
  setDevpost(items: unknown[]): void;
  /** Devfolio `_source` objects answered for one search type. */
  setDevfolio(type: DevfolioSearchType, sources: unknown[]): void;
  /** From now on this listing fails so; null makes it answer again. */
  fail(listing: FakeListing, failure: FakeListingFailure | null): void;
  readonly requests: FakeListingRequest[];
  close(): Promise<void>;
}

/**
 * The seeded listings. With `now` 2026-03-01T12:00Z: one event started this morning, one yesterday, one too far
 * (June), three events listed by two sources under other spellings, and malformed items in each listing.
 */
export const HACKATHON_SEEDS = {
  hackClub: [
    { id: 'recHackPenn', name: 'Hack Pennsylvania', website: 'https://hackpenn.com', start: '2026-03-14T14:00:00.000Z', end: '2026-03-15T20:00:00.000Z', createdAt: '2025-11-02T18:20:00.000Z', logo: 'https://dl.airtable.com/logo.png', banner: '', city: 'State College', state: 'PA', country: 'United States', countryCode: 'US', latitude: '40.7933949', longitude: '-77.8600012', virtual: false, hybrid: false, mlhAssociated: false, apac: false },
    { id: 'recMorning', name: 'Morning Hack', website: 'https://morninghack.dev', start: '2026-03-01T08:00:00.000Z', end: '2026-03-01T20:00:00.000Z', createdAt: '2026-01-10T10:00:00.000Z', logo: '', banner: '', city: 'Austin', state: 'TX', country: 'United States', countryCode: 'US', latitude: '30.2672', longitude: '-97.7431', virtual: false, hybrid: true, mlhAssociated: false, apac: false },
    { id: 'recClimate', name: 'Global Climate Hack', website: 'https://climatehack.io', start: '2026-04-18T15:00:00.000Z', end: '2026-04-19T21:00:00.000Z', createdAt: '2026-01-20T09:00:00.000Z', logo: '', banner: '', city: '', state: '', country: '', countryCode: '', latitude: '', longitude: '', virtual: true, hybrid: false, mlhAssociated: false, apac: false },
    { id: 'recValley', name: 'Hack the Valley', website: 'https://hackthevalley.io', start: '2026-05-02T13:00:00.000Z', end: '2026-05-03T18:00:00.000Z', createdAt: '2026-02-01T12:00:00.000Z', logo: '', banner: '', city: 'Toronto', state: 'ON', country: 'Canada', countryCode: 'CA', latitude: '43.7845', longitude: '-79.1864', virtual: false, hybrid: false, mlhAssociated: false, apac: false },
    { id: 'recSummer', name: 'Summer Shipyard', website: 'https://shipyard.hackclub.com', start: '2026-06-20T15:00:00.000Z', end: '2026-06-21T15:00:00.000Z', createdAt: '2026-02-10T12:00:00.000Z', logo: '', banner: '', city: 'Burlington', state: 'VT', country: 'United States', countryCode: 'US', latitude: '', longitude: '', virtual: false, hybrid: false, mlhAssociated: false, apac: false },
    // Malformed: no website; no usable start; not an object.
    { id: 'recNoSite', name: 'No Site Hack', website: '', start: '2026-03-20T15:00:00.000Z', end: '2026-03-21T15:00:00.000Z', city: '', state: '', country: '', virtual: true, hybrid: false },
    { id: 'recNoStart', name: 'Someday Hack', website: 'https://someday.dev', start: 'TBD', end: '', city: '', state: '', country: '', virtual: false, hybrid: false },
    null,
  ],
  devpost: [
    { id: 30101, title: 'Spring Build', url: 'https://spring-build.devpost.com/', open_state: 'upcoming', submission_period_dates: 'Mar 02 - 04, 2026', displayed_location: { icon: 'globe', location: 'Online' }, themes: [{ id: 23, name: 'Beginner Friendly' }], prize_amount: '$<span data-currency-value>5,000</span>', registrations_count: 412, organization_name: 'Spring Labs', time_left_to_submission: 'about 1 month left', featured: false, invite_only: false, winners_announced: false, managed_by_devpost_badge: true, thumbnail_url: '//d112y698adiu2z.cloudfront.net/spring.png' },
    { id: 30102, title: 'Build With Gemma', url: 'https://build-with-gemma.devpost.com/', open_state: 'upcoming', submission_period_dates: 'Mar 20 - 22, 2026', displayed_location: { icon: 'map-marker-alt', location: 'Bengaluru, India' }, themes: [{ id: 6, name: 'Machine Learning/AI' }], prize_amount: '$<span data-currency-value>10,000</span>', registrations_count: 980, organization_name: 'Heapify', featured: true, invite_only: false, winners_announced: false },
    { id: 30103, title: 'Water Data Challenge', url: 'https://water-data.devpost.com/', open_state: 'upcoming', submission_period_dates: 'Mar 28 - Apr 02, 2026', displayed_location: { icon: 'map-marker-alt', location: 'Lisbon, Portugal' }, themes: [], prize_amount: '', registrations_count: 55, organization_name: 'EU Water', featured: false, invite_only: false, winners_announced: false },
    { id: 30104, title: '  GLOBAL   CLIMATE HACK ', url: 'https://global-climate-hack.devpost.com/', open_state: 'upcoming', submission_period_dates: 'Apr 18 - 19, 2026', displayed_location: { icon: 'globe', location: 'Online' }, themes: [{ id: 13, name: 'Social Good' }], prize_amount: '$<span data-currency-value>2,500</span>', registrations_count: 230, organization_name: 'Climate Org', featured: false, invite_only: false, winners_announced: false },
    // Running already: answered only to a request for status[]=open.
    { id: 30105, title: 'Ongoing Jam', url: 'https://ongoing-jam.devpost.com/', open_state: 'open', submission_period_dates: 'Feb 01 - Mar 30, 2026', displayed_location: { icon: 'globe', location: 'Online' } },
    // Malformed: no title; a period that is not a date; a link that is not http(s).
    { id: 30106, title: '', url: 'https://untitled.devpost.com/', open_state: 'upcoming', submission_period_dates: 'Mar 10 - 12, 2026', displayed_location: { icon: 'globe', location: 'Online' } },
    { id: 30107, title: 'Dates To Be Announced', url: 'https://tba.devpost.com/', open_state: 'upcoming', submission_period_dates: 'TBA', displayed_location: { icon: 'globe', location: 'Online' } },
    { id: 30108, title: 'Script Link', url: 'javascript:alert(1)', open_state: 'upcoming', submission_period_dates: 'Mar 10 - 12, 2026', displayed_location: { icon: 'globe', location: 'Online' } },
  ],
  devfolio: {
    upcoming: [
      { uuid: 'a1b2c3', name: 'ETHIndia Warmup', slug: 'ethindia-warmup', tagline: 'Online sprint', starts_at: '2026-03-10T04:30:00+00:00', ends_at: '2026-03-11T12:30:00+00:00', is_online: true, city: null, state: null, country: null, location: null, status: 'publish', type: 'HACKATHON', hackathon_setting: { reg_starts_at: '2026-03-02T04:30:00+00:00', reg_ends_at: '2026-03-09T18:30:00+00:00' } },
      { uuid: '9ca9be83', name: 'Build with Gemma', slug: 'build-with-gemma-bengaluru-ai-sprint', tagline: 'Bengaluru AI Sprint', starts_at: '2026-03-21T03:30:00+00:00', ends_at: '2026-03-21T15:00:00+00:00', is_online: false, city: 'Bengaluru', state: 'Karnataka', country: 'India', location: 'Ramaiah Institute of Technology, MSRIT Post, Bengaluru, Karnataka, India', status: 'publish', type: 'HACKATHON', hackathon_setting: { reg_starts_at: '2026-03-03T04:30:00+00:00', reg_ends_at: '2026-03-15T18:30:00+00:00' } },
    ],
    application_open: [
      // Also in `upcoming` (same uuid): one event.
      { uuid: '9ca9be83', name: 'Build with Gemma', slug: 'build-with-gemma-bengaluru-ai-sprint', starts_at: '2026-03-21T03:30:00+00:00', ends_at: '2026-03-21T15:00:00+00:00', is_online: false, city: 'Bengaluru', state: 'Karnataka', country: 'India' },
      { uuid: 'd4e5f6', name: 'hack the  valley', slug: 'hack-the-valley', starts_at: '2026-05-02T00:00:00+00:00', ends_at: null, city: null, state: null, country: null, location: null },
      { uuid: 'y3st3r', name: 'Yesterday Hack', slug: 'yesterday-hack', starts_at: '2026-02-28T10:00:00+00:00', ends_at: '2026-03-01T10:00:00+00:00', is_online: true },
      // Malformed: no slug; a start that is not a timestamp.
      { uuid: 'n0slug', name: 'Slugless', slug: null, starts_at: '2026-03-15T04:30:00+00:00', is_online: true },
      { uuid: 'b4dd4t', name: 'Soon Hack', slug: 'soon-hack', starts_at: 'soon', is_online: true },
    ],
  },
} as const;

type Teardown = { teardown(fn: () => unknown): void };

const LISTING_OF: Record<string, FakeListing> = {
  '/api/events/upcoming': 'listing_a',
  '/api/hackathons': 'listing_b',
  '/api/search/hackathons': 'listing_c',
};

/** What a bot wall sends: 200, a JSON content type, and HTML. */
const GARBAGE = '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>';

export async function startFakeHackathons(t?: Teardown): Promise<FakeHackathons> {
  let hackClub: unknown[] = [...HACKATHON_SEEDS.hackClub];
  let devpost: unknown[] = [...HACKATHON_SEEDS.devpost];
  const devfolio: Record<DevfolioSearchType, unknown[]> = {
    upcoming: [...HACKATHON_SEEDS.devfolio.upcoming],
    application_open: [...HACKATHON_SEEDS.devfolio.application_open],
  };
  const failures = new Map<FakeListing, FakeListingFailure>();
  const requests: FakeListingRequest[] = [];

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };

  const answer = (listing: FakeListing, req: IncomingMessage, url: URL, body: unknown, res: ServerResponse) => {
    if (listing === 'listing_a') {
      if (req.method !== 'GET') return json(res, 405, { error: 'method not allowed' });
      return json(res, 200, hackClub);
    }
    if (listing === 'listing_b') {
      if (req.method !== 'GET') return json(res, 405, { error: 'method not allowed' });
      const statuses = url.searchParams.getAll('status[]');
      const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 9) || 9, 40); // Devpost caps at 40
      const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
      const matching = devpost.filter((item) => statuses.length === 0
        || statuses.includes(String((item as { open_state?: unknown } | null)?.open_state)));
      return json(res, 200, { hackathons: matching.slice((page - 1) * perPage, page * perPage), meta: { total_count: matching.length, per_page: perPage, fuzzy: false } });
    }
    if (req.method !== 'POST') return json(res, 404, { message: 'Not Found' });
    const { type, from = 0, size = 10 } = (body ?? {}) as { type?: string; from?: number; size?: number };
    const sources = type === 'upcoming' || type === 'application_open' ? devfolio[type] : [];
    const hits = sources.slice(from, from + size).map((source) => ({ _index: 'hackathons', _id: (source as { uuid?: string } | null)?.uuid ?? null, _source: source }));
    return json(res, 200, { took: 3, timed_out: false, hits: { total: { value: sources.length, relation: 'eq' }, max_score: null, hits } });
  };

  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => { raw += chunk; });
    req.on('end', () => {
      const url = new URL(req.url!, 'http://fake');
      const listing = LISTING_OF[url.pathname];
      if (!listing) return json(res, 404, { error: 'not found' });
      let body: unknown = null;
      if (raw) { try { body = JSON.parse(raw); } catch { body = raw; } }
      const query: Record<string, string[]> = {};
      for (const key of new Set(url.searchParams.keys())) query[key] = url.searchParams.getAll(key);
      requests.push({ listing, method: req.method!, path: url.pathname, query, body });

      const failure = failures.get(listing);
      if (failure === 'hang') return; // the socket stays open until close()
      if (failure === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(GARBAGE);
      }
      if (failure) return json(res, failure.status, { error: 'fake failure' });
      answer(listing, req, url, body, res);
    });
  });
  const { origin, close } = await listenOutside(server, t);

  return {
    url: origin,
    urls: { listing_a: origin, listing_b: origin, listing_c: origin },
    setHackClub: (events) => { hackClub = [...events]; },
    setDevpost: (items) => { devpost = [...items]; },
    setDevfolio: (type, sources) => { devfolio[type] = [...sources]; },
    fail: (listing, failure) => { if (failure) failures.set(listing, failure); else failures.delete(listing); },
    requests,
    close,
  };
}
