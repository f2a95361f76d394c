// Devpost's listing gives no timestamps, only the submission period as it shows it on the page:
// "May 19 - Aug 17, 2026", "Jul 18 - 19, 2026" (same month), "Aug 17, 2026" (one day) and, across a new year,
// "Dec 28, 2025 - Jan 05, 2026". Formats as quoted by open-source readers of the API (see ./devpost.ts). Days are
// UTC midnight: the string carries no time zone.

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const FULL_MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

interface Side { month: number | null; day: number; year: number | null }

/** "May 19", "May 19, 2026", "19" or "19, 2026"; a month is any start of its English name of 3 letters or more. */
function readSide(raw: string): Side | null {
  const match = /^(?:([a-z]+)\.?\s+)?(\d{1,2})(?:,?\s+(\d{4}))?$/.exec(raw.trim().toLowerCase());
  if (!match) return null;
  let month: number | null = null;
  if (match[1]) {
    month = MONTHS.indexOf(match[1].slice(0, 3));
    if (month < 0 || !FULL_MONTHS[month].startsWith(match[1])) return null;
  }
  return { month, day: Number(match[2]), year: match[3] ? Number(match[3]) : null };
}

/** The date, or null when the day does not exist (Feb 30): Date.UTC would roll it over. */
function calendarDay(year: number, month: number, day: number): Date | null {
  const date = new Date(Date.UTC(year, month, day));
  return date.getUTCMonth() === month && date.getUTCDate() === day ? date : null;
}

export function parseDevpostPeriod(period: string): { starts: Date; ends: Date | null } | null {
  // `(?<!\s)`: a dash's spaces are tried from the first only, not again from each (quadratic on a long run).
  const sides = period.split(/(?<!\s)\s+[-–]\s+/);
  if (sides.length > 2) return null;
  const first = readSide(sides[0]);
  const last = sides[1] === undefined ? null : readSide(sides[1]);
  if (!first || (sides[1] !== undefined && !last)) return null;
  if (!last) {
    if (first.month === null || first.year === null) return null;
    const day = calendarDay(first.year, first.month, first.day);
    return day ? { starts: day, ends: day } : null;
  }
  // The year is written once at the end; the month of the end is left out when it is the start's.
  if (first.month === null || last.year === null) return null;
  const endMonth = last.month ?? first.month;
  // "Dec 28 - Jan 05, 2026": a start month after the end month is in the year before.
  const startYear = first.year ?? (first.month > endMonth ? last.year - 1 : last.year);
  const starts = calendarDay(startYear, first.month, first.day);
  const ends = calendarDay(last.year, endMonth, last.day);
  if (!starts || !ends || ends < starts) return null;
  return { starts, ends };
}
