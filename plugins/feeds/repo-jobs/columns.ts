// Finds the five columns of a job table by their header names, wherever they sit and whatever else the table has
// (Salary, Work Model, ...).

export type Column = 'company' | 'role' | 'location' | 'link' | 'posted';

/** Header names accepted for each column, lowercase, after markup is removed. */
export const HEADER_NAMES: Record<Column, readonly string[]> = {
  company: ['company', 'company name', 'employer'],
  role: ['role', 'position', 'job title', 'title'],
  location: ['location', 'locations'],
  link: ['application/link', 'application', 'link', 'apply', 'apply link', 'posting'],
  posted: ['date posted', 'posted', 'date', 'age', 'date added'],
};

export type ColumnIndex = Record<Column, number>;

/** The index of each column, or null when the header lacks one of them (another table of the README). */
export function findColumns(headerNames: string[]): ColumnIndex | null {
  // Once collapsed, whitespace is single spaces, so ` ?\/ ?` takes all of it around a slash; `\s*\/` would too, but
  // the ReDoS check cannot know the runs are short and flags it (quadratic on a long run of spaces).
  const names = headerNames.map((name) => name.toLowerCase().replace(/\s+/g, ' ').replace(/ ?\/ ?/g, '/').trim());
  const index = {} as ColumnIndex;
  for (const column of Object.keys(HEADER_NAMES) as Column[]) {
    const at = names.findIndex((name) => HEADER_NAMES[column].includes(name));
    if (at === -1) return null;
    index[column] = at;
  }
  return index;
}
