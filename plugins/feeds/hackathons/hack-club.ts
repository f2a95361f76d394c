// listing_a: Hack Club's directory of hackathons (https://hackathons.hackclub.com), a public JSON API whose docs
// ask users to credit "Hack Club Hackathons" with a link — the feed's README does.
//
// GET {FEEDS_LISTING_A_URL}/api/events/upcoming → a JSON array of events. Where the shape comes from (the site's
// source, github.com/hackclub/hackathons, read at commit 43a97dcd9d28666b20abf81502335d7b263140ab, May 2026):
// - components/api.mdx (the site's "API" page): the endpoint and the event schema
//   { id, name, website, start, end, createdAt, logo, banner, city, state, country, countryCode, latitude,
//     longitude, virtual, hybrid, mlhAssociated, apac } with ISO UTC dates ("2019-01-18T19:00:00.000Z").
// - lib/data.js getEvents(): the events now come from dash.hackathons.hackclub.com (v1/hackathons) and are mapped to
//   that schema (modality online → virtual, hybrid → hybrid; a `hack_club_event` flag is added); events without
//   id, name, website, start or end are dropped; an undefined field is sent as "" and an unknown place as null.
// - pages/api/events/upcoming.js: only events whose end is still ahead are listed (some may have started).
import type { AdapterContext, HackathonEvent, SourceRead } from './event.js';
import { fetchJson } from './fetch-json.js';
import { endAfter, httpUrl, isItem, isoDate, place, text } from './fields.js';
import { HackathonSourceError } from './source-error.js';

export const HACK_CLUB_UPCOMING_PATH = '/api/events/upcoming';

export async function readHackClub(context: AdapterContext): Promise<SourceRead> {
  const answer = await fetchJson(context.fetch, context.baseUrl + HACK_CLUB_UPCOMING_PATH,
    { headers: { accept: 'application/json' } }, context.timeoutMs);
  if (!Array.isArray(answer)) throw new HackathonSourceError('answer is not a list of events');
  const events = answer.map(hackClubEvent).filter((event): event is HackathonEvent => event !== null);
  return { events, skipped: answer.length - events.length };
}

export function hackClubEvent(item: unknown): HackathonEvent | null {
  if (!isItem(item)) return null;
  const name = text(item.name);
  const url = httpUrl(item.website);
  const starts = isoDate(item.start);
  if (!name || !url || !starts) return null;
  const virtual = item.virtual === true;
  const hybrid = item.hybrid === true;
  const saysMode = typeof item.virtual === 'boolean' || typeof item.hybrid === 'boolean';
  return {
    name,
    url,
    starts_at: starts,
    ends_at: endAfter(starts, isoDate(item.end)),
    // `country` is the full name ("United States"); the code is only a fallback.
    location: place(item.city, item.state, text(item.country) ?? item.countryCode),
    // Hybrid events can be joined online too.
    online: saysMode ? virtual || hybrid : null,
    source: 'listing_a',
  };
}
