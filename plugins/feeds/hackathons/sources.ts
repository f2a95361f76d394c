// Which real service each of the spec's listings is, the setting that holds its base URL, and the read functions
// bound to a fetcher: the one place that maps listing_a/b/c to Hack Club, Euro-Hackathons and Hackalist, the public
// JSON listings the seed system read (the two commercial sites that refuse automated requests are not sources).
import type { AdapterContext, Fetcher, HackathonSourceId, SourceRead } from './event.js';
import { HACKATHON_SOURCE_IDS } from './event.js';
import { readHackClub } from './hack-club.js';
import { readEuroHackathons } from './euro-hackathons.js';
import { readHackalist } from './hackalist.js';

export interface HackathonSource {
  /** The real service, for docs and logs. */
  service: string;
  /** The server setting (environment variable) holding the base URL; tests point it at a fake. */
  setting: string;
  /** Base URL when the setting is unset. */
  defaultUrl: string;
  read(context: AdapterContext): Promise<SourceRead>;
}

export const HACKATHON_SOURCES: Readonly<Record<HackathonSourceId, HackathonSource>> = Object.freeze({
  listing_a: { service: 'Hack Club Hackathons', setting: 'FEEDS_LISTING_A_URL', defaultUrl: 'https://hackathons.hackclub.com', read: readHackClub },
  listing_b: { service: 'Euro-Hackathons', setting: 'FEEDS_LISTING_B_URL', defaultUrl: 'https://euro-hackathons.com', read: readEuroHackathons },
  listing_c: { service: 'Hackalist', setting: 'FEEDS_LISTING_C_URL', defaultUrl: 'https://www.hackalist.org', read: readHackalist },
});

/** Per request, body included. A source slower than this counts as failed for the run. */
export const DEFAULT_HACKATHON_TIMEOUT_MS = 15_000;

/** A read of one listing, ready to call; collectHackathons takes these. */
export type HackathonFetchers = Partial<Record<HackathonSourceId, () => Promise<SourceRead>>>;

export function createHackathonFetchers(options: {
  fetch: Fetcher;
  urls: Record<HackathonSourceId, string>;
  timeoutMs?: number;
  /** The run's time (which Hackalist months are asked). Default: now. */
  now?: Date;
}): HackathonFetchers {
  const timeoutMs = options.timeoutMs ?? DEFAULT_HACKATHON_TIMEOUT_MS;
  const now = options.now ?? new Date();
  const fetchers: HackathonFetchers = {};
  for (const id of HACKATHON_SOURCE_IDS) {
    const context = { fetch: options.fetch, now, baseUrl: options.urls[id].replace(/(?<!\/)\/+$/, ''), timeoutMs };
    fetchers[id] = () => HACKATHON_SOURCES[id].read(context);
  }
  return fetchers;
}
