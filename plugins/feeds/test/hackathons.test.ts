// The hackathons feed kind's reader against a loopback fake of the three listings (Hack Club, Devpost, Devfolio):
// each adapter's normalisation with malformed items skipped, merging the same event across listings, the
// days-ahead window on a fixed `now`, and every way a listing can fail (status, garbage, no answer, refused).
import t from 'tap';
import { startFakeHackathons, type FakeHackathons } from '@quad/core/testing';
import {
  AllHackathonSourcesFailedError, collectHackathons, createHackathonFetchers, hackathonItemKey,
  mergeHackathons, parseDevpostPeriod, readDevfolio, readDevpost, readHackClub,
  type AdapterContext, type HackathonEvent, type HackathonSourceId,
} from '../hackathons/index.js';

/** Noon UTC on the day the fake's seeds are laid out around. */
const NOW = new Date('2026-03-01T12:00:00Z');
const ALL: HackathonSourceId[] = ['listing_a', 'listing_b', 'listing_c'];
const WINDOW = { now: NOW, minDaysAhead: 0, maxDaysAhead: 90 };

const iso = (date: Date | null) => date?.toISOString() ?? null;
const line = (e: HackathonEvent) => `${e.source} | ${e.name} | ${iso(e.starts_at)}`;
const context = (fake: FakeHackathons, timeoutMs = 5_000): AdapterContext => ({ fetch, baseUrl: fake.url, timeoutMs });
const fetchers = (fake: FakeHackathons, timeoutMs = 5_000) => createHackathonFetchers({ fetch, urls: fake.urls, timeoutMs });

t.test('listing_a (Hack Club): events read, malformed ones counted', async (t) => {
  const fake = await startFakeHackathons(t);
  const { events, skipped } = await readHackClub(context(fake));
  t.same(events.map(line), [
    'listing_a | Hack Pennsylvania | 2026-03-14T14:00:00.000Z',
    'listing_a | Morning Hack | 2026-03-01T08:00:00.000Z',
    'listing_a | Global Climate Hack | 2026-04-18T15:00:00.000Z',
    'listing_a | Hack the Valley | 2026-05-02T13:00:00.000Z',
    'listing_a | Summer Shipyard | 2026-06-20T15:00:00.000Z',
  ], 'in the listing\'s order; the adapter does not filter by date');
  t.equal(skipped, 3, 'no website, start "TBD", and a null item');
  t.same(events[0], {
    name: 'Hack Pennsylvania', url: 'https://hackpenn.com/', starts_at: new Date('2026-03-14T14:00:00Z'),
    ends_at: new Date('2026-03-15T20:00:00Z'), location: 'State College, PA, United States', online: false, source: 'listing_a',
  });
  t.equal(events[1].online, true, 'hybrid: can be joined online');
  t.equal(events[1].location, 'Austin, TX, United States', 'and keeps its place');
  t.match(events[2], { online: true, location: null }, 'virtual, with the empty strings the API sends for no place');
  t.match(fake.requests, [{ listing: 'listing_a', method: 'GET', path: '/api/events/upcoming' }]);
});

t.test('listing_b (Devpost): upcoming events, day dates from the submission period, malformed ones counted', async (t) => {
  const fake = await startFakeHackathons(t);
  const { events, skipped } = await readDevpost(context(fake));
  t.same(events.map((e) => `${e.name} | ${iso(e.starts_at)} | ${iso(e.ends_at)} | ${e.location} | ${e.online}`), [
    'Spring Build | 2026-03-02T00:00:00.000Z | 2026-03-04T00:00:00.000Z | null | true',
    'Build With Gemma | 2026-03-20T00:00:00.000Z | 2026-03-22T00:00:00.000Z | Bengaluru, India | false',
    'Water Data Challenge | 2026-03-28T00:00:00.000Z | 2026-04-02T00:00:00.000Z | Lisbon, Portugal | false',
    'GLOBAL CLIMATE HACK | 2026-04-18T00:00:00.000Z | 2026-04-19T00:00:00.000Z | null | true',
  ], 'names trimmed and collapsed; "Online" is the online flag, not a place');
  t.equal(skipped, 3, 'no title, period "TBA", a javascript: link');
  t.ok(events.every((e) => e.source === 'listing_b' && e.url.startsWith('https://')));
  t.equal(fake.requests.length, 1, 'a short first page is the last one');
  t.same(fake.requests[0].query, { 'status[]': ['upcoming'], per_page: ['40'], page: ['1'] },
    'only upcoming: the running "Ongoing Jam" is not asked for');
});

t.test('listing_b pages until a short page, at most DEVPOST_MAX_PAGES', async (t) => {
  const fake = await startFakeHackathons(t);
  const item = (n: number) => ({ id: n, title: `Hack ${n}`, url: `https://hack-${n}.devpost.com/`, open_state: 'upcoming', submission_period_dates: 'Mar 10 - 12, 2026', displayed_location: { icon: 'globe', location: 'Online' } });
  fake.setDevpost(Array.from({ length: 45 }, (_, n) => item(n)));
  const { events } = await readDevpost(context(fake));
  t.equal(events.length, 45);
  t.same(fake.requests.map((r) => r.query.page), [['1'], ['2']]);

  fake.requests.length = 0;
  fake.setDevpost(Array.from({ length: 200 }, (_, n) => item(n)));
  t.equal((await readDevpost(context(fake))).events.length, 120, 'three pages of 40, then it stops');
  t.equal(fake.requests.length, 3);
});

t.test('Devpost submission periods', async (t) => {
  const day = (text: string) => {
    const period = parseDevpostPeriod(text);
    return period && `${iso(period.starts)?.slice(0, 10)} → ${iso(period.ends)?.slice(0, 10)}`;
  };
  t.equal(day('May 19 - Aug 17, 2026'), '2026-05-19 → 2026-08-17', 'across months');
  t.equal(day('Jul 18 - 19, 2026'), '2026-07-18 → 2026-07-19', 'same month written once');
  t.equal(day('Aug 17, 2026'), '2026-08-17 → 2026-08-17', 'one day');
  t.equal(day('Dec 28, 2025 - Jan 05, 2026'), '2025-12-28 → 2026-01-05', 'across a new year, both years written');
  t.equal(day('Dec 28 - Jan 05, 2026'), '2025-12-28 → 2026-01-05', 'across a new year, one year written');
  t.equal(day('September 3 - 5, 2026'), '2026-09-03 → 2026-09-05', 'full month name');
  for (const bad of ['TBA', 'Feb 30 - Mar 02, 2026', 'Mar 10 - 12', 'Foo 10 - 12, 2026', 'Mar 12 - 10, 2026', '']) {
    t.equal(parseDevpostPeriod(bad), null, `unreadable: "${bad}"`);
  }
});

t.test('listing_c (Devfolio): both searches, one event per uuid, page URL built from the slug', async (t) => {
  const fake = await startFakeHackathons(t);
  const { events, skipped } = await readDevfolio(context(fake));
  t.same(events.map(line), [
    'listing_c | ETHIndia Warmup | 2026-03-10T04:30:00.000Z',
    'listing_c | Build with Gemma | 2026-03-21T03:30:00.000Z',
    'listing_c | hack the valley | 2026-05-02T00:00:00.000Z',
    'listing_c | Yesterday Hack | 2026-02-28T10:00:00.000Z',
  ], '"Build with Gemma" is in both searches and read once');
  t.equal(skipped, 2, 'no slug, start "soon"');
  t.same(events[1], {
    name: 'Build with Gemma', url: 'https://build-with-gemma-bengaluru-ai-sprint.devfolio.co/',
    starts_at: new Date('2026-03-21T03:30:00Z'), ends_at: new Date('2026-03-21T15:00:00Z'),
    location: 'Bengaluru, Karnataka, India', online: false, source: 'listing_c',
  }, 'city, state and country rather than the street address');
  t.match(events[2], { online: null, location: null, ends_at: null }, 'fields the listing leaves out stay unknown');
  t.same(fake.requests.map((r) => [r.method, r.path, r.body]), [
    ['POST', '/api/search/hackathons', { type: 'upcoming', from: 0, size: 50 }],
    ['POST', '/api/search/hackathons', { type: 'application_open', from: 0, size: 50 }],
  ]);
});

t.test('all three merged: one event per lowercase name, the window 0 to 90 days, sorted by start', async (t) => {
  const fake = await startFakeHackathons(t);
  const run = await collectHackathons(ALL, fetchers(fake), WINDOW);
  t.same(run.events.map(line), [
    'listing_a | Morning Hack | 2026-03-01T08:00:00.000Z',
    'listing_b | Spring Build | 2026-03-02T00:00:00.000Z',
    'listing_c | ETHIndia Warmup | 2026-03-10T04:30:00.000Z',
    'listing_a | Hack Pennsylvania | 2026-03-14T14:00:00.000Z',
    'listing_b | Build With Gemma | 2026-03-20T00:00:00.000Z',
    'listing_b | Water Data Challenge | 2026-03-28T00:00:00.000Z',
    'listing_a | Global Climate Hack | 2026-04-18T15:00:00.000Z',
    'listing_a | Hack the Valley | 2026-05-02T13:00:00.000Z',
  ], 'Morning Hack started this morning and is kept: 0 days ahead');
  t.same(run.sources, {
    listing_a: { ok: true, found: 5, skipped: 3 },
    listing_b: { ok: true, found: 4, skipped: 3 },
    listing_c: { ok: true, found: 4, skipped: 2 },
  });
  t.equal(run.duplicates, 3, 'Global Climate Hack (a, b), Build with Gemma (b, c), Hack the Valley (a, c)');
  t.same(run.filtered, { tooSoon: 1, tooLate: 1 }, 'Yesterday Hack; Summer Shipyard (111 days)');
  t.same(run.events.map((e) => e.key), run.events.map((e) => hackathonItemKey(e.name)));
  t.equal(run.events.find((e) => e.key === 'global climate hack')?.source, 'listing_a',
    'same day, as many fields: the first listing, with its start time rather than Devpost\'s midnight');
  t.match(run.events.find((e) => e.key === 'build with gemma'), { source: 'listing_b', location: 'Bengaluru, India', ends_at: new Date('2026-03-22T00:00:00Z') },
    'the earliest start wins (Devpost: Mar 20; Devfolio: Mar 21)');
  t.match(run.events.find((e) => e.key === 'hack the valley'), { source: 'listing_a', location: 'Toronto, ON, Canada' },
    'same day: the copy with more fields wins over Devfolio\'s earlier, emptier one');
});

t.test('min and max days ahead on a fixed now', async (t) => {
  const fake = await startFakeHackathons(t);
  const names = async (minDaysAhead: number, maxDaysAhead: number) =>
    (await collectHackathons(ALL, fetchers(fake), { now: NOW, minDaysAhead, maxDaysAhead })).events.map((e) => e.name);
  t.same(await names(0, 0), ['Morning Hack'], '0 and 0: today only');
  t.same(await names(1, 13), ['Spring Build', 'ETHIndia Warmup', 'Hack Pennsylvania'], 'tomorrow to Mar 14, both ends in');
  t.same(await names(14, 90), ['Build With Gemma', 'Water Data Challenge', 'Global Climate Hack', 'Hack the Valley']);
  t.same(await names(0, 200), ['Morning Hack', 'Spring Build', 'ETHIndia Warmup', 'Hack Pennsylvania', 'Build With Gemma',
    'Water Data Challenge', 'Global Climate Hack', 'Hack the Valley', 'Summer Shipyard'], 'yesterday\'s event never');
  const late = await collectHackathons(ALL, fetchers(fake), { now: new Date('2026-03-01T23:59:59Z'), minDaysAhead: 1, maxDaysAhead: 1 });
  t.same(late.events.map((e) => e.name), ['Spring Build'], 'days are UTC calendar days, not 24-hour spans');
});

t.test('only the chosen listings are asked', async (t) => {
  const fake = await startFakeHackathons(t);
  const run = await collectHackathons(['listing_b'], fetchers(fake), WINDOW);
  t.same(Object.keys(run.sources), ['listing_b']);
  t.ok(fake.requests.every((r) => r.listing === 'listing_b'));
  t.equal(run.events.length, 4);
});

t.test('one listing failing: the others still count, the failure is reported', async (t) => {
  const fake = await startFakeHackathons(t);
  fake.fail('listing_a', { status: 503 });
  const run = await collectHackathons(ALL, fetchers(fake), WINDOW);
  t.same(run.sources.listing_a, { ok: false, error: 'answered HTTP 503' });
  t.match(run.sources, { listing_b: { ok: true }, listing_c: { ok: true } });
  t.notOk(run.events.some((e) => e.source === 'listing_a'));
  t.match(run.events.find((e) => e.key === 'hack the valley'), { source: 'listing_c', name: 'hack the valley' },
    'an event only the failed listing had in full comes from the one left');
});

t.test('every chosen listing failing: a typed error naming each reason', async (t) => {
  const fake = await startFakeHackathons(t);
  fake.fail('listing_a', { status: 500 });
  fake.fail('listing_b', 'garbage');
  fake.fail('listing_c', { status: 429 });
  const error = await collectHackathons(ALL, fetchers(fake), WINDOW).catch((e: unknown) => e);
  t.type(error, AllHackathonSourcesFailedError);
  const failed = error as AllHackathonSourcesFailedError;
  t.same(failed.failures, { listing_a: 'answered HTTP 500', listing_b: 'answer is not JSON', listing_c: 'answered HTTP 429' });
  t.equal(failed.message, 'every hackathon source failed: listing_a: answered HTTP 500; listing_b: answer is not JSON; listing_c: answered HTTP 429');
  t.notMatch(failed.message, fake.url, 'no URL in a message officers read');

  fake.fail('listing_a', null);
  const run = await collectHackathons(ALL, fetchers(fake), WINDOW);
  t.match(run.sources.listing_a, { ok: true }, 'one answering listing is enough');
});

t.test('a listing that never answers is cut by the timeout', async (t) => {
  const fake = await startFakeHackathons(t);
  fake.fail('listing_c', 'hang');
  const started = Date.now();
  const run = await collectHackathons(ALL, fetchers(fake, 300), WINDOW);
  t.ok(Date.now() - started < 3_000, 'the run does not wait for it');
  t.same(run.sources.listing_c, { ok: false, error: 'timed out after 300 ms' });
  t.match(run.sources, { listing_a: { ok: true }, listing_b: { ok: true } });
});

t.test('a fetcher that ignores the abort signal is cut all the same', async (t) => {
  const never = () => new Promise<Response>(() => {});
  const read = readHackClub({ fetch: never, baseUrl: 'http://unused.invalid', timeoutMs: 50 });
  await t.rejects(read, { name: 'HackathonSourceError', message: 'timed out after 50 ms' });
});

t.test('garbage and unexpected shapes fail the listing with a short message', async (t) => {
  const fake = await startFakeHackathons(t);
  fake.fail('listing_a', 'garbage');
  await t.rejects(readHackClub(context(fake)), { message: 'answer is not JSON' });

  // Valid JSON of the wrong shape, answered in memory.
  const answering = (body: unknown) => async () => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  const at = (body: unknown): AdapterContext => ({ fetch: answering(body), baseUrl: 'http://unused.invalid', timeoutMs: 1_000 });
  await t.rejects(readHackClub(at({ events: [] })), { message: 'answer is not a list of events' });
  await t.rejects(readDevpost(at([])), { message: 'answer has no hackathons list' });
  await t.rejects(readDevfolio(at({ result: [] })), { message: 'answer has no hits list' });
  t.same(await readHackClub(at([])), { events: [], skipped: 0 }, 'an empty list is an answer');
});

t.test('a listing that refuses the connection fails with the error code only', async (t) => {
  const fake = await startFakeHackathons(t);
  const urls = fake.urls;
  await fake.close();
  const run = await collectHackathons(['listing_a', 'listing_b'], createHackathonFetchers({ fetch, urls, timeoutMs: 2_000 }), WINDOW)
    .catch((e: unknown) => e as AllHackathonSourcesFailedError);
  t.type(run, AllHackathonSourcesFailedError);
  t.same((run as AllHackathonSourcesFailedError).failures, { listing_a: 'request failed (ECONNREFUSED)', listing_b: 'request failed (ECONNREFUSED)' });
});

t.test('a fetcher\'s own errors become a reason, never their message', async (t) => {
  const throwing = (error: Error) => async (): Promise<Response> => { throw error; };
  const refused = Object.assign(new Error('refused: listing.example resolves to 10.0.0.5'), { name: 'SafeFetchError', reason: 'refused' });
  const odd = new Error('token=abc123 leaked in a message');
  const run = await collectHackathons(['listing_a', 'listing_b'], {
    listing_a: () => readHackClub({ fetch: throwing(refused), baseUrl: 'http://unused.invalid', timeoutMs: 1_000 }),
    listing_b: () => readDevpost({ fetch: throwing(odd), baseUrl: 'http://unused.invalid', timeoutMs: 1_000 }),
  }, WINDOW).catch((e: unknown) => e as AllHackathonSourcesFailedError);
  t.same((run as AllHackathonSourcesFailedError).failures, { listing_a: 'request failed (refused)', listing_b: 'failed (Error)' });
});

t.test('merging fills a missing field from another copy, never an end before the start', async (t) => {
  const event = (over: Partial<HackathonEvent>): HackathonEvent => ({
    name: 'Hack', url: 'https://hack.example/', starts_at: new Date('2026-03-10T10:00:00Z'), ends_at: null,
    location: null, online: null, source: 'listing_a', ...over,
  });
  const { events, duplicates } = mergeHackathons([
    event({ name: 'Hack  X', location: 'Oslo, Norway', online: false }),
    event({ name: ' hack x', source: 'listing_b', starts_at: new Date('2026-03-10T00:00:00Z'), ends_at: new Date('2026-03-12T00:00:00Z') }),
    // Same day: the copy knowing place and mode wins; the other's end falls before the winner's start time.
    event({ name: 'Other', source: 'listing_c', location: 'Rome, Italy', online: false }),
    event({ name: 'other', source: 'listing_a', starts_at: new Date('2026-03-10T00:00:00Z'), ends_at: new Date('2026-03-10T05:00:00Z') }),
  ]);
  t.equal(duplicates, 2);
  t.match(events[0], { name: 'Hack  X', source: 'listing_a', location: 'Oslo, Norway', ends_at: new Date('2026-03-12T00:00:00Z') });
  t.match(events[1], { name: 'Other', source: 'listing_c', location: 'Rome, Italy' });
  t.equal(events[1].ends_at, null, 'an end before the start is not taken');
  t.equal(hackathonItemKey('  Hack \t X '), 'hack x');
});

t.test('no source chosen is a programming error', async (t) => {
  await t.rejects(collectHackathons([], {}, WINDOW), TypeError);
});
