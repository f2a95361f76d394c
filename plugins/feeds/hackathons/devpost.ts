// listing_b: Devpost's hackathon listing (https://devpost.com/hackathons), read through the JSON its page loads.
// It is not a documented API, but it is public and needs no key; an open-source project's notes record
// devpost.com's robots.txt as `User-agent: *` with an empty Disallow, and many open-source bots read it.
//
// GET {FEEDS_LISTING_B_URL}/api/hackathons?status[]=upcoming&per_page=40&page=N →
//   { hackathons: [{ id, title, url, submission_period_dates, displayed_location: { icon, location }, open_state,
//     themes, prize_amount, organization_name, … }], meta: { total_count, per_page } }
// Where the shape comes from (no official docs): a project's recon notes captured from the live API on 2026-07-13
// (status[] repeatable with open|upcoming; page 1-based; per_page capped at 40, default 9; the example item with
// displayed_location { icon: "globe", location: "Online" } and "submission_period_dates": "May 19 - Aug 17, 2026"),
// matching field lists in several other open-source readers (title, url, submission_period_dates,
// displayed_location.location, meta.total_count).
// Only `upcoming` is asked for: `open` events have started, and the feed announces events ahead.
import type { AdapterContext, HackathonEvent, SourceRead } from './event.js';
import { fetchJson } from './fetch-json.js';
import { httpUrl, isItem, text } from './fields.js';
import { parseDevpostPeriod } from './devpost-dates.js';
import { HackathonSourceError } from './source-error.js';

export const DEVPOST_LIST_PATH = '/api/hackathons';
/** Devpost's cap of per_page. */
export const DEVPOST_PAGE_SIZE = 40;
/** Enough for the upcoming list (tens of events); a bound so a listing that never ends cannot loop. */
export const DEVPOST_MAX_PAGES = 3;

export async function readDevpost(context: AdapterContext): Promise<SourceRead> {
  const items: unknown[] = [];
  for (let page = 1; page <= DEVPOST_MAX_PAGES; page++) {
    const query = new URLSearchParams({ 'status[]': 'upcoming', per_page: String(DEVPOST_PAGE_SIZE), page: String(page) });
    const answer = await fetchJson(context.fetch, `${context.baseUrl}${DEVPOST_LIST_PATH}?${query}`,
      { headers: { accept: 'application/json' } }, context.timeoutMs);
    if (!isItem(answer) || !Array.isArray(answer.hackathons)) throw new HackathonSourceError('answer has no hackathons list');
    items.push(...answer.hackathons);
    const total = isItem(answer.meta) && typeof answer.meta.total_count === 'number' ? answer.meta.total_count : null;
    if (answer.hackathons.length < DEVPOST_PAGE_SIZE || (total !== null && items.length >= total)) break;
  }
  const events = items.map(devpostEvent).filter((event): event is HackathonEvent => event !== null);
  return { events, skipped: items.length - events.length };
}

export function devpostEvent(item: unknown): HackathonEvent | null {
  if (!isItem(item)) return null;
  const name = text(item.title);
  const url = httpUrl(item.url);
  const period = text(item.submission_period_dates);
  const dates = period ? parseDevpostPeriod(period) : null;
  if (!name || !url || !dates) return null;
  const shown = isItem(item.displayed_location) ? item.displayed_location : {};
  const where = text(shown.location);
  const online = shown.icon === 'globe' || (where !== null && /^online$/i.test(where));
  return {
    name,
    url,
    starts_at: dates.starts,
    ends_at: dates.ends,
    location: where && !/^online$/i.test(where) ? where : null,
    online: online ? true : where !== null ? false : null,
    source: 'listing_b',
  };
}
