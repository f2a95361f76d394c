// min_days_ahead / max_days_ahead, counted in UTC calendar days: an event starting later today is 0 days ahead, one
// that started earlier today too (a feed running every few hours must not miss a same-day event), one that started
// yesterday is -1 and never shown. Whole days because Hackalist (and often Euro-Hackathons) give only days.

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of the UTC day `date` falls on. */
export function utcDayNumber(date: Date): number {
  return Math.floor(date.getTime() / DAY_MS);
}

export function daysAhead(startsAt: Date, now: Date): number {
  return utcDayNumber(startsAt) - utcDayNumber(now);
}

export type DaysAheadVerdict = 'kept' | 'tooSoon' | 'tooLate';

export function daysAheadVerdict(startsAt: Date, now: Date, minDaysAhead: number, maxDaysAhead: number): DaysAheadVerdict {
  const days = daysAhead(startsAt, now);
  if (days < minDaysAhead) return 'tooSoon';
  if (days > maxDaysAhead) return 'tooLate';
  return 'kept';
}
