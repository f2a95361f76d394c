// listing_c: Devfolio's hackathon search (https://devfolio.co/hackathons), the public JSON endpoint its page calls.
// Not documented and not keyed; open-source bots read it the same way.
//
// POST {FEEDS_LISTING_C_URL}/api/search/hackathons with JSON { type, from, size } → an Elasticsearch envelope
//   { hits: { total: { value }, hits: [{ _source: { uuid, name, slug, starts_at, ends_at, is_online, city, state,
//     country, location, tagline, hackathon_setting: { reg_starts_at, reg_ends_at, … }, … } }] } }
// Where the shape comes from (no official docs): a project's recon notes captured from the live API on 2026-07-13
// (both request bodies below, the envelope, a real _source with ISO UTC dates "2026-07-18T03:30:00+00:00", the
// full key list, and that the event page is https://{slug}.devfolio.co/, built, not returned), matching several
// other open-source readers (hits.hits[]._source with name, slug, starts_at, ends_at, is_online, city, country).
// `upcoming` (registration not open yet) and `application_open` (registration open) are both events ahead; an event
// can be in both, so they are merged by uuid (or slug).
import type { AdapterContext, HackathonEvent, SourceRead } from './event.js';
import { fetchJson } from './fetch-json.js';
import { endAfter, isItem, isoDate, place, text } from './fields.js';
import { HackathonSourceError } from './source-error.js';

export const DEVFOLIO_SEARCH_PATH = '/api/search/hackathons';
export const DEVFOLIO_TYPES = ['upcoming', 'application_open'] as const;
/** One page per type: recon found about twenty events in all. */
export const DEVFOLIO_PAGE_SIZE = 50;

export async function readDevfolio(context: AdapterContext): Promise<SourceRead> {
  const pages = await Promise.all(DEVFOLIO_TYPES.map(async (type) => {
    const answer = await fetchJson(context.fetch, context.baseUrl + DEVFOLIO_SEARCH_PATH, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ type, from: 0, size: DEVFOLIO_PAGE_SIZE }),
    }, context.timeoutMs);
    const hits = isItem(answer) && isItem(answer.hits) ? answer.hits.hits : undefined;
    if (!Array.isArray(hits)) throw new HackathonSourceError('answer has no hits list');
    return hits as unknown[];
  }));
  const seen = new Set<string>();
  const events: HackathonEvent[] = [];
  let skipped = 0;
  for (const hit of pages.flat()) {
    const source = isItem(hit) && isItem(hit._source) ? hit._source : null;
    const id = source ? text(source.uuid) ?? text(source.slug) : null;
    if (id && seen.has(id)) continue; // the same event under both types
    if (id) seen.add(id);
    const event = devfolioEvent(source);
    if (event) events.push(event); else skipped++;
  }
  return { events, skipped };
}

/** Slugs become a host name label. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

export function devfolioEvent(source: unknown): HackathonEvent | null {
  if (!isItem(source)) return null;
  const name = text(source.name);
  const slug = text(source.slug);
  const starts = isoDate(source.starts_at);
  if (!name || !slug || !SLUG.test(slug) || !starts) return null;
  return {
    name,
    url: `https://${slug.toLowerCase()}.devfolio.co/`,
    starts_at: starts,
    ends_at: endAfter(starts, isoDate(source.ends_at)),
    // City, state and country read better than `location`, which is often a full street address.
    location: place(source.city, source.state, source.country) ?? text(source.location),
    online: typeof source.is_online === 'boolean' ? source.is_online : null,
    source: 'listing_c',
  };
}
