// Whether a README still reads as a job list as a whole. A list whose format changed (its tables renamed their
// columns or became something else, or its rows no longer read) must fail the feed with a reason an officer can act
// on, rather than post nothing without a word or post rows read wrongly.
import type { ParseResult } from '../repo-jobs.js';

/** The run fails when at least this many rows are unreadable and they are at least half the rows considered. */
export const UNREADABLE_ROWS_MIN = 5;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Null when the README reads as a job list; else why not, in a few words (the caller names the repository). */
export function formatProblem(result: ParseResult): string | null {
  if (result.jobTables === 0) {
    const seen = result.otherTables.map((header) => header.filter(Boolean).join(', ')).filter(Boolean).map((h) => `"${clip(h, 100)}"`);
    return 'has no job table (a Markdown or HTML table with the columns Company, Role, Location, Application/Link and Date Posted or Age)'
      + (seen.length ? `; the tables found have the columns ${seen.join('; ')}` : '; no table was found')
      + ': the list\'s format may have changed';
  }
  const unreadable = result.skipped.filter((row) => row.reason !== 'duplicate');
  const considered = result.jobs.length + unreadable.length;
  if (unreadable.length >= UNREADABLE_ROWS_MIN && unreadable.length * 2 >= considered) {
    const [first] = unreadable;
    return `could not read ${unreadable.length} of ${considered} rows (line ${first!.line}: ${first!.reason}, ${clip(first!.detail, 100)}): `
      + 'the list\'s format may have changed';
  }
  return null;
}
