// The hackathons feed kind's reader against a loopback fake of the three listings (Hack Club, Euro-Hackathons,
// Hackalist): each adapter on the services' real answers (fixtures/hackathons/, sources in fixtures/SOURCES.md) and
// on the fake's seeds with malformed items skipped, merging the same event across listings, the days-ahead window
// on a fixed `now`, and every way a listing can fail (status, garbage, no answer, refused).
import t from 'tap';
import { readFileSync } from 'node:fs';
import { startFakeHackathons, type FakeHackathons } from '@quad/core/testing';
import {
  AllHackathonSourcesFailedError, HACKALIST_MONTHS, collectHackathons, createHackathonFetchers, hackalistDay, hackathonItemKey,
  mergeHackathons, readEuroHackathons, readHackClub, readHackalist,
  type AdapterContext, type HackathonEvent, type HackathonSourceId,
} from '../hackathons/index.js';

/** Noon UTC on the day the fake's seeds are laid out around. */
const NOW = new Date('2026-03-01T12:00:00Z');
const ALL: HackathonSourceId[] = ['listing_a', 'listing_b', 'listing_c'];
const WINDOW = { now: NOW, minDaysAhead: 0, maxDaysAhead: 90 };

const sample = (name: string): unknown => JSON.parse(readFileSync(new URL(`./fixtures/hackathons/${name}`, import.meta.url), 'utf8'));
const iso = (date: Date | null) => date?.toISOString() ?? null;
const line = (e: HackathonEvent) => `${e.source} | ${e.name} | ${iso(e.starts_at)}`;
const context = (fake: FakeHackathons, now = NOW, timeoutMs = 5_000): AdapterContext => ({ fetch, now, baseUrl: fake.url, timeoutMs });
const fetchers = (fake: FakeHackathons, timeoutMs = 5_000) => createHackathonFetchers({ fetch, urls: fake.urls, timeoutMs, now: NOW });

t.test('listing_a (Hack Club): the documented event as the API sends it', async (t) => {
  const fake = await startFakeHackathons(t);
  fake.setHackClub(sample('hackclub-upcoming.json') as unknown[]);
  const { events, skipped } = await readHackClub(context(fake));
  t.same(events, [{
    name: 'Hack Pennsylvania', url: 'https://hackpenn.com/', starts_at: new Date('2019-01-18T19:00:00Z'),
    ends_at: new Date('2019-01-19T19:00:00Z'), location: 'State College, PA, United States', online: false, source: 'listing_a',
  }]);
  t.equal(skipped, 0);
  t.match(fake.requests, [{ listing: 'listing_a', method: 'GET', path: '/api/events/upcoming' }]);
});

t.test('listing_a on the seeds: malformed events counted, online and hybrid read', async (t) => {
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
  t.match(events[1], { online: true, location: 'Austin, TX, United States' }, 'hybrid: can be joined online, and keeps its place');
  t.match(events[2], { online: true, location: null }, 'virtual, with the nulls the API sends for no place');
});

t.test('listing_b (Euro-Hackathons): the documented answer, then the seeds', async (t) => {
  const fake = await startFakeHackathons(t);
  fake.setEuroHackathons((sample('euro-hackathons-upcoming.json') as { data: unknown[] }).data);
  t.same(await readEuroHackathons(context(fake)), {
    events: [{
      name: 'AI Hackathon Munich', url: 'https://example.com/hackathon', starts_at: new Date('2025-06-15T09:00:00Z'),
      ends_at: new Date('2025-06-16T18:00:00Z'), location: 'Munich, DE', online: null, source: 'listing_b',
    }],
    skipped: 0,
  }, 'city and country code; the API does not say whether one can take part online');
  t.same(fake.requests.map((r) => [r.path, r.query]), [['/api/hackathons', { status: ['upcoming'] }]]);

  const seeded = await startFakeHackathons(t);
  const { events, skipped } = await readEuroHackathons(context(seeded));
  t.same(events.map((e) => `${e.name} | ${iso(e.starts_at)} | ${iso(e.ends_at)} | ${e.location}`), [
    'Spring Build | 2026-03-02T00:00:00.000Z | 2026-03-04T00:00:00.000Z | Berlin, DE',
    'Build With Gemma | 2026-03-20T00:00:00.000Z | 2026-03-22T00:00:00.000Z | Munich, DE',
    'Water Data Challenge | 2026-03-28T09:00:00.000Z | 2026-04-02T18:00:00.000Z | Lisbon, PT',
    'GLOBAL CLIMATE HACK | 2026-04-18T00:00:00.000Z | null | null',
    'Yesterday Hack | 2026-02-28T10:00:00.000Z | 2026-03-01T10:00:00.000Z | Milan, IT',
  ], 'day-only dates are UTC midnight; names trimmed and collapsed; "past" rows are not asked for');
  t.equal(skipped, 3, 'no name, start "TBA", a javascript: link');
});

t.test('listing_c (Hackalist): the real month files, five months asked, a missing month is empty', async (t) => {
  const fake = await startFakeHackathons(t);
  for (const month of ['2026/03', '2026/05']) fake.setHackalistMonth(month, null);
  fake.setHackalistMonth('2024/12', sample('hackalist-2024-12.json'));
  fake.setHackalistMonth('2025/03', sample('hackalist-2025-03.json'));
  const { events, skipped } = await readHackalist(context(fake, new Date('2024-12-10T12:00:00Z')));
  t.same(events, [
    { name: 'PEC Hacks 2.0', url: 'https://pechacks.org/', starts_at: new Date('2024-12-28T00:00:00Z'), ends_at: new Date('2024-12-29T00:00:00Z'), location: 'Chennai, Tamil Nadu, India', online: null, source: 'listing_c' },
    { name: 'BISV Hacks', url: 'https://bisvhacks.com/', starts_at: new Date('2025-03-01T00:00:00Z'), ends_at: new Date('2025-03-01T00:00:00Z'), location: 'San Jose, CA, United States', online: null, source: 'listing_c' },
  ], '"December 28" and "1 March" with the year field; the city trimmed');
  t.equal(skipped, 0);
  t.equal(HACKALIST_MONTHS, 5);
  t.same(fake.requests.map((r) => r.path), ['/api/1.0/2024/12.json', '/api/1.0/2025/01.json', '/api/1.0/2025/02.json', '/api/1.0/2025/03.json', '/api/1.0/2025/04.json'],
    'this month and the next four, across the year end; 01, 02 and 04 answer 404 and count as empty');
});

t.test('listing_c on hand-typed files: online cities, a missing end, "location" for "city", a url without scheme', async (t) => {
  const fake = await startFakeHackathons(t);
  fake.setHackalistMonth('2021/05', sample('hackalist-2021-05.json'));
  fake.setHackalistMonth('2021/06', sample('hackalist-2021-06.json'));
  const may = await readHackalist(context(fake, new Date('2021-05-01T00:00:00Z')));
  t.same(may.events.map((e) => `${e.name} | ${iso(e.starts_at)} | ${iso(e.ends_at)} | ${e.location} | ${e.online}`), [
    'SPARC FAIR Codeathon: Request for proposals | 2021-05-06T00:00:00.000Z | null | null | true',
    'Hydrangea Hacks | 2021-06-18T00:00:00.000Z | 2021-06-20T00:00:00.000Z | San Jose, CA, United States | null',
    'Ericsson Together Apart Hackathon UAE | 2021-06-10T00:00:00.000Z | 2021-06-12T00:00:00.000Z | null | true',
  ], 'an empty endDate is no end; "Virtual" and "Online" are online, not places; "10 June 2021" read');

  fake.setHackalistMonth('2020/08', sample('hackalist-2020-08.json'));
  const august = await readHackalist(context(fake, new Date('2020-08-01T00:00:00Z')));
  t.same(august.events.map((e) => `${e.name} | ${iso(e.ends_at)} | ${e.online}`), [
    'Code Together 2020 | 2020-10-13T00:00:00.000Z | true',
    'NHacks | 2020-08-23T00:00:00.000Z | true',
  ], '"location": "Online" where "city" is missing');
  t.equal(august.skipped, 1, 'TecHacks: "techecks.ml/" is not a link');
});

t.test('Hackalist days', async (t) => {
  const day = (text: string, year: number | null = 2026) => iso(hackalistDay(text, year))?.slice(0, 10) ?? null;
  t.equal(day('October 30'), '2026-10-30');
  t.equal(day('30 October'), '2026-10-30');
  t.equal(day('March, 21'), '2026-03-21');
  t.equal(day('Sept 3'), '2026-09-03', 'a month name cut short');
  t.equal(day('10 June 2021'), '2021-06-10', 'a year in the text wins');
  t.equal(day('June 10', null), null, 'no year at all');
  for (const bad of ['', 'soon', 'February 30', 'Foo 12', 'June', '12', 'June 10 and 11', 'x'.repeat(41)]) t.equal(day(bad), null, `unreadable: "${bad.slice(0, 20)}"`);
  const fake = await startFakeHackathons(t);
  fake.setHackalistMonth('2026/12', { December: [{ title: 'New Year Hack', url: 'https://nyh.example/', startDate: 'December 30', endDate: 'January 2', year: '2026', city: 'Online' }] });
  const { events } = await readHackalist(context(fake, new Date('2026-12-01T00:00:00Z')));
  t.same(events.map((e) => [iso(e.starts_at), iso(e.ends_at)]), [['2026-12-30T00:00:00.000Z', '2027-01-02T00:00:00.000Z']], 'an end in January is next year');
});

t.test('all three merged: one event per lowercase name, the window 0 to 90 days, sorted by start', async (t) => {
  const fake = await startFakeHackathons(t);
  const run = await collectHackathons(ALL, fetchers(fake), WINDOW);
  t.same(run.events.map(line), [
    'listing_a | Morning Hack | 2026-03-01T08:00:00.000Z',
    'listing_b | Spring Build | 2026-03-02T00:00:00.000Z',
    'listing_c | Warmup Hack | 2026-03-10T00:00:00.000Z',
    'listing_a | Hack Pennsylvania | 2026-03-14T14:00:00.000Z',
    'listing_b | Build With Gemma | 2026-03-20T00:00:00.000Z',
    'listing_b | Water Data Challenge | 2026-03-28T09:00:00.000Z',
    'listing_a | Global Climate Hack | 2026-04-18T15:00:00.000Z',
    'listing_a | Hack the Valley | 2026-05-02T13:00:00.000Z',
  ], 'Morning Hack started this morning and is kept: 0 days ahead');
  t.same(run.sources, {
    listing_a: { ok: true, found: 5, skipped: 3 },
    listing_b: { ok: true, found: 5, skipped: 3 },
    listing_c: { ok: true, found: 3, skipped: 2 },
  });
  t.equal(run.duplicates, 3, 'Global Climate Hack (a, b), Build with Gemma (b, c), Hack the Valley (a, c)');
  t.same(run.filtered, { tooSoon: 1, tooLate: 1 }, 'Yesterday Hack; Summer Shipyard (111 days)');
  t.same(run.events.map((e) => e.key), run.events.map((e) => hackathonItemKey(e.name)));
  t.equal(run.events.find((e) => e.key === 'global climate hack')?.source, 'listing_a',
    'same day, more fields: the first listing, with its start time rather than a whole day');
  t.match(run.events.find((e) => e.key === 'build with gemma'), { source: 'listing_b', location: 'Munich, DE', ends_at: new Date('2026-03-22T00:00:00Z') },
    'the earliest start wins (Euro-Hackathons: Mar 20; Hackalist: Mar 21)');
  t.match(run.events.find((e) => e.key === 'hack the valley'), { source: 'listing_a', location: 'Toronto, ON, Canada' },
    'same day: the copy with more fields wins over Hackalist\'s emptier one');
  t.same(fake.requests.filter((r) => r.listing === 'listing_c').map((r) => r.path),
    ['/api/1.0/2026/03.json', '/api/1.0/2026/04.json', '/api/1.0/2026/05.json', '/api/1.0/2026/06.json', '/api/1.0/2026/07.json']);
});

t.test('min and max days ahead on a fixed now', async (t) => {
  const fake = await startFakeHackathons(t);
  const names = async (minDaysAhead: number, maxDaysAhead: number) =>
    (await collectHackathons(ALL, fetchers(fake), { now: NOW, minDaysAhead, maxDaysAhead })).events.map((e) => e.name);
  t.same(await names(0, 0), ['Morning Hack'], '0 and 0: today only');
  t.same(await names(1, 13), ['Spring Build', 'Warmup Hack', 'Hack Pennsylvania'], 'tomorrow to Mar 14, both ends in');
  t.same(await names(14, 90), ['Build With Gemma', 'Water Data Challenge', 'Global Climate Hack', 'Hack the Valley']);
  t.same(await names(0, 200), ['Morning Hack', 'Spring Build', 'Warmup Hack', 'Hack Pennsylvania', 'Build With Gemma',
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
  const read = readHackClub({ fetch: never, now: NOW, baseUrl: 'http://unused.invalid', timeoutMs: 50 });
  await t.rejects(read, { name: 'HackathonSourceError', message: 'timed out after 50 ms' });
});

t.test('garbage and unexpected shapes fail the listing with a short message', async (t) => {
  const fake = await startFakeHackathons(t);
  fake.fail('listing_a', 'garbage');
  await t.rejects(readHackClub(context(fake)), { message: 'answer is not JSON' });

  // Valid JSON of the wrong shape, answered in memory.
  const answering = (body: unknown, status = 200) => async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const at = (body: unknown, status = 200): AdapterContext => ({ fetch: answering(body, status), now: NOW, baseUrl: 'http://unused.invalid', timeoutMs: 1_000 });
  await t.rejects(readHackClub(at({ events: [] })), { message: 'answer is not a list of events' });
  await t.rejects(readEuroHackathons(at([])), { message: 'answer has no data list' });
  await t.rejects(readEuroHackathons(at({ hackathons: [] })), { message: 'answer has no data list' }, 'the shape the seed system guessed');
  await t.rejects(readHackalist(at([])), { message: 'answer is not a month of events' });
  await t.rejects(readHackalist(at({ March: 'soon' })), { message: 'answer is not a month of events' });
  t.same(await readHackClub(at([])), { events: [], skipped: 0 }, 'an empty list is an answer');
  t.same(await readHackalist(at({ error: 'gone' }, 404)), { events: [], skipped: 0 }, 'no file for any month: nothing listed, not a failure');
});

t.test('a listing that refuses the connection fails with the error code only', async (t) => {
  const fake = await startFakeHackathons(t);
  const urls = fake.urls;
  await fake.close();
  const run = await collectHackathons(['listing_a', 'listing_c'], createHackathonFetchers({ fetch, urls, timeoutMs: 2_000, now: NOW }), WINDOW)
    .catch((e: unknown) => e as AllHackathonSourcesFailedError);
  t.type(run, AllHackathonSourcesFailedError);
  t.same((run as AllHackathonSourcesFailedError).failures, { listing_a: 'request failed (ECONNREFUSED)', listing_c: 'request failed (ECONNREFUSED)' });
});

t.test('a fetcher\'s own errors become a reason, never their message', async (t) => {
  const throwing = (error: Error) => async (): Promise<Response> => { throw error; };
  const refused = Object.assign(new Error('refused: listing.example resolves to 10.0.0.5'), { name: 'SafeFetchError', reason: 'refused' });
  const odd = new Error('token=abc123 leaked in a message');
  const run = await collectHackathons(['listing_a', 'listing_b'], {
    listing_a: () => readHackClub({ fetch: throwing(refused), now: NOW, baseUrl: 'http://unused.invalid', timeoutMs: 1_000 }),
    listing_b: () => readEuroHackathons({ fetch: throwing(odd), now: NOW, baseUrl: 'http://unused.invalid', timeoutMs: 1_000 }),
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
