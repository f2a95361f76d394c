// The day a row was posted, as the lists write it: "Jan 05" (no year), "Sep 23, 2024", "2025-01-05", or an age
// relative to the list's last update ("0d", "3d", "2mo"). Every result is UTC midnight.

const DAY_MS = 86_400_000;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** UTC midnight of the day `date` falls on. */
export function utcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/** The date, or null when the day does not exist (Feb 30): Date.UTC would silently roll it over. */
function calendarDay(year: number, month: number, day: number): Date | null {
  const date = new Date(Date.UTC(year, month, day));
  return date.getUTCMonth() === month && date.getUTCDate() === day ? date : null;
}

/**
 * "Mon DD" carries no year: take the year of `now`, unless that puts the day more than one day after today, then
 * the year before. So on Jan 3 "Dec 30" is last December, while "Jan 04" (a list kept in a time zone ahead of UTC)
 * is still this year.
 */
function withoutYear(month: number, day: number, now: Date): Date | null {
  const latest = utcDay(now).getTime() + DAY_MS;
  const thisYear = calendarDay(now.getUTCFullYear(), month, day);
  if (thisYear && thisYear.getTime() <= latest) return thisYear;
  return calendarDay(now.getUTCFullYear() - 1, month, day);
}

/** Units of an age; a month counts as 30 days (lists round ages anyway). "m" is minutes, as in "14m". */
const AGE_UNITS: Record<string, number> = { m: DAY_MS / 1440, min: DAY_MS / 1440, h: DAY_MS / 24, d: DAY_MS, w: 7 * DAY_MS, mo: 30 * DAY_MS, y: 365 * DAY_MS };

export function parsePosted(text: string, now: Date): Date | null {
  const value = text.trim().toLowerCase();
  const age = /^(\d+)\s*(min|mo|m|h|d|w|y)$/.exec(value);
  if (age) return utcDay(new Date(now.getTime() - Number(age[1]) * AGE_UNITS[age[2]]));
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[t ].*)?$/.exec(value);
  if (iso) return calendarDay(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]));
  const named = /^([a-z]{3})[a-z]*\.?\s+(\d{1,2})(?:,?\s+(\d{4}))?$/.exec(value);
  if (!named) return null;
  const month = MONTHS.indexOf(named[1]);
  if (month === -1) return null;
  return named[3] ? calendarDay(Number(named[3]), month, Number(named[2])) : withoutYear(month, Number(named[2]), now);
}

/** Whole days from the posted day to today; 0 for today. */
export function ageInDays(posted: Date, now: Date): number {
  return Math.round((utcDay(now).getTime() - posted.getTime()) / DAY_MS);
}
