// One event listed by several sources is posted once. The spec's item key is the lowercase event name; whitespace
// is collapsed too, so "HackMIT  2026" and "hackmit 2026" are one event.
import type { HackathonEvent, HackathonSourceId } from './event.js';
import { HACKATHON_SOURCE_IDS } from './event.js';
import { utcDayNumber } from './days-ahead.js';

export function hackathonItemKey(name: string): string {
  return name.replace(/\s+/g, ' ').trim().toLowerCase();
}

const FILLABLE = ['ends_at', 'location', 'online'] as const;
const knownFields = (event: HackathonEvent) => FILLABLE.filter((field) => event[field] !== null).length;
const sourceRank = (source: HackathonSourceId) => HACKATHON_SOURCE_IDS.indexOf(source);

/**
 * Which copy of an event wins: the earliest start day; on the same day the copy that knows more fields (Hackalist
 * and Euro-Hackathons dates are often whole days, so comparing instants would always pick them over a timed
 * listing); then listing order.
 */
function better(a: HackathonEvent, b: HackathonEvent): number {
  return utcDayNumber(a.starts_at) - utcDayNumber(b.starts_at)
    || knownFields(b) - knownFields(a)
    || sourceRank(a.source) - sourceRank(b.source);
}

/**
 * Events grouped by item key, one per key: the winning copy, with the fields it lacks (end, location, online)
 * taken from the other copies in the same order. `duplicates` counts the copies merged away.
 */
export function mergeHackathons(events: HackathonEvent[]): { events: HackathonEvent[]; duplicates: number } {
  const groups = new Map<string, HackathonEvent[]>();
  for (const event of events) {
    const key = hackathonItemKey(event.name);
    groups.set(key, [...(groups.get(key) ?? []), event]);
  }
  const merged = [...groups.values()].map((copies) => {
    const [winner, ...others] = [...copies].sort(better);
    const event = { ...winner };
    for (const field of FILLABLE) {
      const donor = others.find((other) => other[field] !== null);
      // An end taken from another copy must not fall before the winner's start.
      if (event[field] === null && donor && !(field === 'ends_at' && donor.ends_at! < event.starts_at)) {
        Object.assign(event, { [field]: donor[field] });
      }
    }
    return event;
  });
  return { events: merged, duplicates: events.length - merged.length };
}
