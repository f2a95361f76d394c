// The shapes every hackathon source adapter shares: the normalised event, the fetch function it is given and what
// one read of a source gives back.

/** The spec's names for the three listings (config `sources`); which real service each is: ./sources.ts. */
export const HACKATHON_SOURCE_IDS = ['listing_a', 'listing_b', 'listing_c'] as const;
export type HackathonSourceId = (typeof HACKATHON_SOURCE_IDS)[number];

export interface HackathonEvent {
  /** Trimmed, inner whitespace collapsed; the item key is its lowercase form (see hackathonItemKey). */
  name: string;
  /** The event's own page (http or https). */
  url: string;
  starts_at: Date;
  ends_at: Date | null;
  /** A place people can read ("Boston, MA, US"); null when the source gives none (often: online events). */
  location: string | null;
  /** True when one can take part online (online or hybrid), false for in person only, null when not said. */
  online: boolean | null;
  source: HackathonSourceId;
}

/**
 * How an adapter reaches the network. The feeds module will pass the core's safe fetcher behind this shape; tests
 * pass the global fetch against a loopback fake.
 */
export type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

export interface SourceRead {
  events: HackathonEvent[];
  /** Items of the answer that could not be read (no name, no date, no link…): counted, never thrown. */
  skipped: number;
}

/** What an adapter needs for one read. */
export interface AdapterContext {
  fetch: Fetcher;
  /** The run's time: Hackalist is asked for this month and the next ones. */
  now: Date;
  /** The source's base URL (its setting), without a trailing slash. */
  baseUrl: string;
  /** Deadline of each request, body included. */
  timeoutMs: number;
}
