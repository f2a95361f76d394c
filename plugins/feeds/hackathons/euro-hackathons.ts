// listing_b: Euro-Hackathons (https://euro-hackathons.com; the project, github.com/lorenzopalaia/Euro-Hackathons,
// now publishes the same app as "HackTrack EU" at hacktrack-eu.vercel.app), a public JSON API of hackathons in Europe.
//
// GET {FEEDS_LISTING_B_URL}/api/hackathons?status=upcoming → { data: [event] }. Where the shape comes from (its
// source, read at commit 3c6493b0b714fb5b62eeba2436d7cb164e1a44a8):
// - app/api/hackathons/route.ts: `status` (upcoming | past | estimated, default upcoming) filters; the answer is
//   `{ data }`, the rows of `select id, name, city, country_code, date_start, date_end, topics, notes, url, status,
//   is_new` ordered by date_start; 429 past 100 requests an hour (10 a minute) per address.
// - types/database.ts: name and url are strings; city, country_code, date_end, topics, notes may be null.
// - app/docs/page.tsx (the API page): dates as "2025-06-15T09:00:00+00:00"; app/api/update/route.ts stores the
//   day only ("2025-06-15"), so an answer may carry either.
// The API says nothing about taking part online: `online` stays unknown.
import type { AdapterContext, HackathonEvent, SourceRead } from './event.js';
import { fetchJson } from './fetch-json.js';
import { endAfter, httpUrl, isItem, isoDate, place, text } from './fields.js';
import { HackathonSourceError } from './source-error.js';

export const EURO_HACKATHONS_PATH = '/api/hackathons';

export async function readEuroHackathons(context: AdapterContext): Promise<SourceRead> {
  const answer = await fetchJson(context.fetch, `${context.baseUrl}${EURO_HACKATHONS_PATH}?status=upcoming`,
    { headers: { accept: 'application/json' } }, context.timeoutMs);
  if (!isItem(answer) || !Array.isArray(answer.data)) throw new HackathonSourceError('answer has no data list');
  const events = answer.data.map(euroHackathonsEvent).filter((event): event is HackathonEvent => event !== null);
  return { events, skipped: answer.data.length - events.length };
}

export function euroHackathonsEvent(item: unknown): HackathonEvent | null {
  if (!isItem(item)) return null;
  const name = text(item.name);
  const url = httpUrl(item.url);
  const starts = isoDate(item.date_start);
  if (!name || !url || !starts) return null;
  return {
    name,
    url,
    starts_at: starts,
    ends_at: endAfter(starts, isoDate(item.date_end)),
    location: place(item.city, item.country_code),
    online: null,
    source: 'listing_b',
  };
}
