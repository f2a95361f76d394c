// The hackathons feed kind's reader: three public listings behind adapters (Hack Club, Euro-Hackathons, Hackalist as
// the spec's listing_a, listing_b, listing_c), merged and kept to the feed's days-ahead window. Rules: ../README.md,
// "Hackathon sources". The feed run (../listing.ts) passes the core's safe fetcher and the listings' settings:
//
//   const fetchers = createHackathonFetchers({ fetch, urls: listingUrls(settings), now });
//   const { events, sources } = await collectHackathons(['listing_a', 'listing_b'], fetchers,
//     { now, minDaysAhead: 0, maxDaysAhead: 90 });
export { HACKATHON_SOURCE_IDS, type HackathonSourceId, type HackathonEvent, type Fetcher, type SourceRead, type AdapterContext } from './event.js';
export { HACKATHON_SOURCES, DEFAULT_HACKATHON_TIMEOUT_MS, createHackathonFetchers, type HackathonSource, type HackathonFetchers } from './sources.js';
export { collectHackathons, AllHackathonSourcesFailedError, type CollectOptions, type CollectedHackathon, type HackathonCollection, type SourceOutcome } from './collect.js';
export { hackathonItemKey, mergeHackathons } from './merge.js';
export { daysAhead, daysAheadVerdict } from './days-ahead.js';
export { HackathonSourceError } from './source-error.js';
export { readHackClub, hackClubEvent, HACK_CLUB_UPCOMING_PATH } from './hack-club.js';
export { readEuroHackathons, euroHackathonsEvent, EURO_HACKATHONS_PATH } from './euro-hackathons.js';
export { readHackalist, hackalistEvent, hackalistPath, HACKALIST_MONTHS } from './hackalist.js';
export { hackalistDay } from './hackalist-dates.js';
