// listing_c: Hackalist (https://www.hackalist.org), a community list of hackathons kept as one JSON file per month
// in a public repository (github.com/Hackalist/Hackalist.github.io, served as the site by GitHub Pages).
//
// GET {FEEDS_LISTING_C_URL}/api/1.0/<YYYY>/<MM>.json for the run's month and the next four (HACKALIST_MONTHS) → an
// object with one key, the month's English name, holding the events:
//   { "March": [{ title, url, startDate: "March 1" | "1 March" | "10 June 2021", endDate, year: "2025", city, host,
//     length, size, travel, prize, highSchoolers, cost, facebookURL, twitterURL, notes }] }
// Where the shape comes from: the files themselves (the repository's api/1.0/, read at commit
// 64a3036c759ffa577511ffe8d12699fb80925f4b; samples in test/fixtures/hackathons/) and its README ("API": one file per
// month, /api/1.0/YEAR/MONTH.json). A month nobody listed has no file: GitHub Pages answers 404, which here means
// "no events that month", not a failure. Contributors write by hand: an empty endDate, `location` instead of `city`,
// a url without its scheme (skipped) all occur; "Online", "Virtual" or "Remote" as the city means online.
import type { AdapterContext, HackathonEvent, SourceRead } from './event.js';
import { fetchJson, MISSING } from './fetch-json.js';
import { endAfter, httpUrl, isItem, text } from './fields.js';
import { hackalistDay } from './hackalist-dates.js';
import { HackathonSourceError } from './source-error.js';

/** The run's month and the next four. */
export const HACKALIST_MONTHS = 5;

/** `/api/1.0/2026/03.json` for the UTC month `offset` months after `now`'s. */
export function hackalistPath(now: Date, offset: number): string {
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
  return `/api/1.0/${month.getUTCFullYear()}/${String(month.getUTCMonth() + 1).padStart(2, '0')}.json`;
}

/** The events of one month's file (every array in it), or an error when the file is of another shape. */
function monthEvents(answer: unknown): unknown[] {
  if (answer === MISSING) return [];
  if (!isItem(answer)) throw new HackathonSourceError('answer is not a month of events');
  const lists = Object.values(answer);
  if (!lists.every(Array.isArray)) throw new HackathonSourceError('answer is not a month of events');
  return lists.flat();
}

/** Every month is asked at once; any month failing (other than a missing file) fails the source. */
export async function readHackalist(context: AdapterContext): Promise<SourceRead> {
  const months = await Promise.all(Array.from({ length: HACKALIST_MONTHS }, (_, offset) =>
    fetchJson(context.fetch, context.baseUrl + hackalistPath(context.now, offset), { headers: { accept: 'application/json' } },
      context.timeoutMs, { notFound: MISSING })));
  const items = months.flatMap(monthEvents);
  const events = items.map(hackalistEvent).filter((event): event is HackathonEvent => event !== null);
  return { events, skipped: items.length - events.length };
}

const ONLINE = /^(?:online|virtual|remote)$/i;

export function hackalistEvent(item: unknown): HackathonEvent | null {
  if (!isItem(item)) return null;
  const name = text(item.title);
  const url = httpUrl(item.url);
  const year = typeof item.year === 'string' && /^\d{4}$/.test(item.year.trim()) ? Number(item.year.trim()) : null;
  const starts = hackalistDay(item.startDate, year);
  if (!name || !url || !starts) return null;
  // "December 30" to "January 2": the end is in the next year.
  let ends = hackalistDay(item.endDate, year ?? starts.getUTCFullYear());
  if (ends && ends < starts) ends = hackalistDay(item.endDate, starts.getUTCFullYear() + 1);
  const where = text(item.city) ?? text(item.location);
  const online = where !== null && ONLINE.test(where);
  return {
    name,
    url,
    starts_at: starts,
    ends_at: endAfter(starts, ends),
    location: online ? null : where,
    online: online ? true : null,
    source: 'listing_c',
  };
}
