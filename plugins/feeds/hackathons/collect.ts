// One run's read of the chosen listings: all asked at once, merged by item key, kept to the days-ahead window and
// sorted by start. A source that fails is reported and the others still count; the run fails (a typed error) only
// when every chosen source failed, as the spec says.
import type { HackathonEvent, HackathonSourceId, SourceRead } from './event.js';
import type { HackathonFetchers } from './sources.js';
import { shortFailure } from './source-error.js';
import { hackathonItemKey, mergeHackathons } from './merge.js';
import { daysAheadVerdict } from './days-ahead.js';

export interface CollectOptions {
  /** The time of the run; days ahead are counted from its UTC day. */
  now: Date;
  /** Leaves out events starting sooner, in UTC days; 0 keeps events starting today. Spec default 0. */
  minDaysAhead: number;
  /** Leaves out events starting later, in UTC days. Spec default 90. */
  maxDaysAhead: number;
}

export type SourceOutcome =
  | { ok: true; found: number; skipped: number }
  | { ok: false; error: string };

export interface CollectedHackathon extends HackathonEvent {
  /** The feed's item key: the lowercase name. */
  key: string;
}

export interface HackathonCollection {
  /** Sorted by start, then key. */
  events: CollectedHackathon[];
  /** One entry per chosen source: what it gave, or why it failed (short, fit for last_error). */
  sources: Partial<Record<HackathonSourceId, SourceOutcome>>;
  /** Copies of an event merged away. */
  duplicates: number;
  /** Events read but outside the days-ahead window. */
  filtered: { tooSoon: number; tooLate: number };
}

/** Every chosen source failed: the run fails, with each source's reason. */
export class AllHackathonSourcesFailedError extends Error {
  override name = 'AllHackathonSourcesFailedError';
  constructor(readonly failures: Partial<Record<HackathonSourceId, string>>) {
    super(`every hackathon source failed: ${Object.entries(failures).map(([id, why]) => `${id}: ${why}`).join('; ')}`);
  }
}

async function readOne(read: (() => Promise<SourceRead>) | undefined): Promise<SourceRead | { error: string }> {
  if (!read) return { error: 'not configured' };
  try {
    return await read();
  } catch (error) {
    return { error: shortFailure(error) };
  }
}

export async function collectHackathons(
  sources: readonly HackathonSourceId[],
  fetchers: HackathonFetchers,
  options: CollectOptions,
): Promise<HackathonCollection> {
  const chosen = [...new Set(sources)];
  if (chosen.length === 0) throw new TypeError('collectHackathons needs at least one source');
  const reads = await Promise.all(chosen.map((id) => readOne(fetchers[id])));

  const outcomes: HackathonCollection['sources'] = {};
  const failures: Partial<Record<HackathonSourceId, string>> = {};
  const read: HackathonEvent[] = [];
  chosen.forEach((id, index) => {
    const result = reads[index];
    if ('error' in result) {
      outcomes[id] = { ok: false, error: result.error };
      failures[id] = result.error;
      return;
    }
    outcomes[id] = { ok: true, found: result.events.length, skipped: result.skipped };
    read.push(...result.events);
  });
  if (Object.keys(failures).length === chosen.length) throw new AllHackathonSourcesFailedError(failures);

  const { events: merged, duplicates } = mergeHackathons(read);
  const filtered = { tooSoon: 0, tooLate: 0 };
  const events: CollectedHackathon[] = [];
  for (const event of merged) {
    const verdict = daysAheadVerdict(event.starts_at, options.now, options.minDaysAhead, options.maxDaysAhead);
    if (verdict === 'kept') events.push({ ...event, key: hackathonItemKey(event.name) });
    else filtered[verdict]++;
  }
  events.sort((a, b) => a.starts_at.getTime() - b.starts_at.getTime() || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { events, sources: outcomes, duplicates, filtered };
}
