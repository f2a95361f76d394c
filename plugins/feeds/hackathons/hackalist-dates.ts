// Hackalist's days as its contributors type them: "October 30" mostly, also "30 October", "March, 21" and
// "10 June 2021", with the year in a separate field ("2021"). Days are UTC midnight: the files carry no time zone.

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** A month from its English name or a start of it of three letters or more ("Sep", "Sept"), else -1. */
function monthOf(word: string): number {
  const lower = word.toLowerCase().replace(/\.$/, '');
  if (lower.length < 3) return -1;
  return MONTHS.findIndex((month) => month.startsWith(lower));
}

/** The date, or null when the day does not exist (Feb 30): Date.UTC would roll it over. */
function calendarDay(year: number, month: number, day: number): Date | null {
  const date = new Date(Date.UTC(year, month, day));
  return date.getUTCMonth() === month && date.getUTCDate() === day ? date : null;
}

/**
 * The day `text` names, in `year` unless it writes its own; null when it has no month name and day, or other words.
 * Split on spaces and commas (string work, no backtracking pattern over the text); at most 40 characters read.
 */
export function hackalistDay(text: unknown, year: number | null): Date | null {
  if (typeof text !== 'string' || text.length > 40) return null;
  let month = -1;
  let day = -1;
  let ownYear: number | null = null;
  for (const word of text.split(/[\s,]+/)) {
    if (word === '') continue;
    if (/^\d{4}$/.test(word) && ownYear === null) ownYear = Number(word);
    else if (/^\d{1,2}$/.test(word) && day === -1) day = Number(word);
    else if (month === -1 && monthOf(word) !== -1) month = monthOf(word);
    else return null;
  }
  const inYear = ownYear ?? year;
  if (month === -1 || day === -1 || inYear === null) return null;
  return calendarDay(inYear, month, day);
}
