// The parser of feed kind repo_jobs: reads the job tables of a repository README (the new-grad and internship lists
// kept on GitHub, as Markdown pipe tables or HTML tables) into postings with an item key, leaving out closed and old
// roles as the feed's config asks. Bad rows are skipped with a reason, never thrown: one odd line must not stop a
// feed; whether the list as a whole still reads is formatProblem's call. Rules: ./README.md.
import { findTables } from './repo-jobs/markdown-tables.js';
import { findHtmlTables } from './repo-jobs/html-tables.js';
import type { TableRow, TextTable } from './repo-jobs/text-table.js';
import { findColumns, type ColumnIndex } from './repo-jobs/columns.js';
import { cellLinks, cellLocations, plainText } from './repo-jobs/cell-text.js';
import { cleanLink, pickApplicationLink } from './repo-jobs/links.js';
import { ageInDays, parsePosted } from './repo-jobs/posted-date.js';
import { rowFlags, withoutMarkers } from './repo-jobs/flags.js';
import { jobItemKey } from './repo-jobs/item-key.js';

export { cleanLink, TRACKING_PARAMETERS } from './repo-jobs/links.js';
export { jobItemKey, type JobIdentity } from './repo-jobs/item-key.js';
export { formatProblem } from './repo-jobs/format-problem.js';

export interface JobPosting {
  company: string;
  role: string;
  /** Every location of the row, in order; empty when the cell is. */
  locations: string[];
  /** The application link, without tracking parameters. */
  link: string;
  /** The day posted, UTC midnight. */
  posted: Date;
  closed: boolean;
  noSponsorship: boolean;
  citizenshipRequired: boolean;
  /** The feed's item key (see jobItemKey). */
  key: string;
}

export interface ParseOptions {
  /** The time of the run; dates without a year and ages are read against it. */
  now: Date;
  /** Rows posted more than this many days before `now`'s day are left out; 0 keeps every age. */
  maxAgeDays: number;
  /** Leaves out rows marked closed. */
  skipClosed: boolean;
}

export type SkipReason = 'cell_count' | 'no_company' | 'no_role' | 'bad_date' | 'no_link' | 'duplicate';

export interface SkippedRow {
  /** 1-based line of the README. */
  line: number;
  reason: SkipReason;
  detail: string;
}

export interface ParseResult {
  jobs: JobPosting[];
  /** Rows that could not be read (or repeat a posting already read), with why. */
  skipped: SkippedRow[];
  /** Rows read but left out by the options. */
  filtered: { closed: number; tooOld: number };
  /** Tables with the five columns, and the rows they hold (every row: read, skipped or filtered). */
  jobTables: number;
  rows: number;
  /** The header cells (as text) of the first few other tables: what a list whose columns changed now has. */
  otherTables: string[][];
}

/** How many other tables' headers a result keeps. */
const OTHER_TABLES_KEPT = 3;

/** The Company cell of a row that continues the company above. */
const CONTINUATION = '↳';

type RowOutcome = { job: JobPosting } | { skip: SkipReason; detail: string } | { filter: 'closed' | 'tooOld' };

function readRow(cells: string[], columns: ColumnIndex, company: string, options: ParseOptions): RowOutcome {
  const role = withoutMarkers(plainText(cells[columns.role]));
  if (role === '') return { skip: 'no_role', detail: 'the Role cell is empty' };
  const linkCell = cells[columns.link];
  const flags = rowFlags(cells, linkCell);
  if (flags.closed && options.skipClosed) return { filter: 'closed' };

  const postedText = plainText(cells[columns.posted]);
  const posted = parsePosted(postedText, options.now);
  if (!posted) return { skip: 'bad_date', detail: `cannot read the date "${postedText}"` };
  if (options.maxAgeDays > 0 && ageInDays(posted, options.now) > options.maxAgeDays) return { filter: 'tooOld' };

  const link = pickApplicationLink(cellLinks(linkCell));
  if (!link) return { skip: 'no_link', detail: 'no http(s) link in the application cell' };

  const locations = cellLocations(cells[columns.location]);
  const job = { company, role, locations, link: cleanLink(link), posted, ...flags };
  return { job: { ...job, key: jobItemKey(job) } };
}

/** The README's pipe tables and HTML tables, top to bottom. */
function tablesOf(readme: string): TextTable[] {
  return [...findTables(readme), ...findHtmlTables(readme)].sort((a, b) => a.line - b.line);
}

/**
 * Every table of the README whose header has the five columns is read, in order (lists keep one table per
 * category), whether a Markdown pipe table or an HTML table; other tables are ignored. A posting found twice keeps
 * its first row.
 */
export function parseJobTable(readme: string, options: ParseOptions): ParseResult {
  const result: ParseResult = { jobs: [], skipped: [], filtered: { closed: 0, tooOld: 0 }, jobTables: 0, rows: 0, otherTables: [] };
  const firstLineOfKey = new Map<string, number>();
  const skip = (row: TableRow, reason: SkipReason, detail: string) => result.skipped.push({ line: row.line, reason, detail });

  for (const table of tablesOf(readme)) {
    const header = table.header.map(plainText);
    const columns = findColumns(header);
    if (!columns) {
      if (result.otherTables.length < OTHER_TABLES_KEPT) result.otherTables.push(header);
      continue;
    }
    result.jobTables++;
    result.rows += table.rows.length;
    let companyAbove: string | null = null;
    for (const row of table.rows) {
      // Trailing empty cells (a stray `| |`) move nothing; any other count would put data under the wrong header.
      const cells = row.cells.length > table.header.length && row.cells.slice(table.header.length).every((c) => c === '')
        ? row.cells.slice(0, table.header.length)
        : row.cells;
      if (cells.length !== table.header.length) {
        skip(row, 'cell_count', `expected ${table.header.length} cells, found ${cells.length}`);
        companyAbove = null; // its "↳" rows would otherwise go to the company before it
        continue;
      }
      const companyCell = withoutMarkers(plainText(cells[columns.company]));
      const company: string | null = companyCell === CONTINUATION ? companyAbove : companyCell || null;
      companyAbove = company;
      if (!company) {
        skip(row, 'no_company', companyCell === CONTINUATION ? `"${CONTINUATION}" with no readable company row above` : 'the Company cell is empty');
        continue;
      }

      const outcome = readRow(cells, columns, company, options);
      if ('filter' in outcome) result.filtered[outcome.filter]++;
      else if ('skip' in outcome) skip(row, outcome.skip, outcome.detail);
      else if (firstLineOfKey.has(outcome.job.key)) skip(row, 'duplicate', `same posting as line ${firstLineOfKey.get(outcome.job.key)}`);
      else {
        firstLineOfKey.set(outcome.job.key, row.line);
        result.jobs.push(outcome.job);
      }
    }
  }
  return result;
}
