// One read of a feed's listing, whatever its kind: the repository file's job tables (repo_jobs) or the chosen
// hackathon listings (hackathons), as items with a key, a title, a link and what the Discord message shows. Every
// request goes through the core's safe fetcher; base URLs are the deployment's settings (so `trusted`).
import { safeFetch, type SafeResponse } from '@quad/core';
import { formatProblem, parseJobTable } from './repo-jobs.js';
import { collectHackathons, createHackathonFetchers, type Fetcher, type SourceOutcome } from './hackathons/index.js';
import type { FeedKind, HackathonsConfig, RepoJobsConfig } from './feed-config.js';
import { listingUrls, rawFileUrl, type FeedsSettings } from './settings.js';

export interface ListingItem {
  key: string;
  title: string;
  url: string;
  /** The kind's fields for the message (messages.ts), JSON. */
  data: JobData | HackathonData;
}
export interface JobData { kind: 'repo_jobs'; company: string; role: string; locations: string[]; posted: string; no_sponsorship: boolean; citizenship_required: boolean }
export interface HackathonData { kind: 'hackathons'; name: string; starts_at: string; ends_at: string | null; location: string | null; online: boolean | null; source: string }

export interface Listing { items: ListingItem[]; note: string | null }

/** A listing that could not be read; the message is fit for last_error (no URL of a setting, no stack). */
export class ListingError extends Error {
  override name = 'ListingError';
}

const TIMEOUT_MS = 15_000;
/**
 * The most read of an answer: a README (the biggest job lists, HTML tables, are about 1 MB) or a listing. A cap keeps
 * a wrong path from filling memory; the parser is linear in what it reads.
 */
const MAX_FILE_BYTES = 5 * 1024 * 1024;

/** The core's safe fetcher behind the Fetch API shape the hackathon adapters take. */
const safeFetcher: Fetcher = async (url, init = {}) => {
  const res = await safeFetch(url, {
    method: (init.method ?? 'GET') as 'GET' | 'POST',
    headers: init.headers as Record<string, string> | undefined,
    body: typeof init.body === 'string' ? init.body : undefined,
    timeoutMs: TIMEOUT_MS, maxBytes: MAX_FILE_BYTES, trusted: true, signal: init.signal ?? undefined,
  });
  return new Response(new Uint8Array(res.body), { status: res.status, headers: res.headers });
};

async function readRepoFile(settings: FeedsSettings, config: RepoJobsConfig): Promise<string> {
  const where = `${config.path} of ${config.repo} (branch ${config.branch})`;
  let res: SafeResponse;
  try {
    res = await safeFetch(rawFileUrl(settings, config.repo, config.branch, config.path), { timeoutMs: TIMEOUT_MS, maxBytes: MAX_FILE_BYTES, trusted: true });
  } catch (err) {
    const reason = (err as { reason?: string }).reason;
    throw new ListingError(`could not read ${where}: ${reason === 'too_large' ? 'the file is over 5 MB' : `request failed (${reason ?? 'network'})`}`);
  }
  if (res.status === 404) throw new ListingError(`${where} was not found: check repo, branch and path`);
  if (!res.ok) throw new ListingError(`could not read ${where}: the code-hosting service answered HTTP ${res.status}`);
  return res.text();
}

async function readJobs(settings: FeedsSettings, config: RepoJobsConfig, now: Date): Promise<Listing> {
  const readme = await readRepoFile(settings, config);
  const parsed = parseJobTable(readme, { now, maxAgeDays: config.max_age_days, skipClosed: config.skip_closed });
  const problem = formatProblem(parsed);
  // Nothing is recorded or posted from a list that no longer reads: its rows could all look new.
  if (problem) throw new ListingError(`${config.path} of ${config.repo} (branch ${config.branch}) ${problem}`);
  const items = parsed.jobs.map((job): ListingItem => ({
    key: job.key,
    title: `${job.company}: ${job.role}`,
    url: job.link,
    data: {
      kind: 'repo_jobs', company: job.company, role: job.role, locations: job.locations, posted: job.posted.toISOString().slice(0, 10),
      no_sponsorship: job.noSponsorship, citizenship_required: job.citizenshipRequired,
    },
  }));
  const unreadable = parsed.skipped.filter((row) => row.reason !== 'duplicate').length;
  return { items, note: unreadable ? `${unreadable} rows could not be read` : null };
}

async function readHackathons(settings: FeedsSettings, config: HackathonsConfig, now: Date): Promise<Listing> {
  const fetchers = createHackathonFetchers({ fetch: safeFetcher, urls: listingUrls(settings), timeoutMs: TIMEOUT_MS, now });
  const run = await collectHackathons(config.sources, fetchers, { now, minDaysAhead: config.min_days_ahead, maxDaysAhead: config.max_days_ahead });
  const items = run.events.map((event): ListingItem => ({
    key: event.key,
    title: event.name,
    url: event.url,
    data: {
      kind: 'hackathons', name: event.name, starts_at: event.starts_at.toISOString(), ends_at: event.ends_at?.toISOString() ?? null,
      location: event.location, online: event.online, source: event.source,
    },
  }));
  const failed = Object.entries(run.sources).filter((entry): entry is [string, Extract<SourceOutcome, { ok: false }>] => !entry[1]!.ok);
  return { items, note: failed.length ? `failed sources: ${failed.map(([id, o]) => `${id} (${o.error})`).join(', ')}` : null };
}

/** The feed's current listing; throws ListingError (or AllHackathonSourcesFailedError) when it cannot be read. */
export function readListing(settings: FeedsSettings, kind: FeedKind, config: unknown, now: Date): Promise<Listing> {
  return kind === 'repo_jobs'
    ? readJobs(settings, config as RepoJobsConfig, now)
    : readHackathons(settings, config as HackathonsConfig, now);
}
