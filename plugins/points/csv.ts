// Event check-in sheets: RFC 4180 reading by csv-parse (quoted fields, doubled quotes, CRLF, LF or CR, a leading
// BOM) and the check of each row. Problems are collected for every row so an officer can fix the whole sheet at once.
import { CsvError, parse } from 'csv-parse/sync';

export interface CsvProblem {
  /** Line of the file (1 is the header). */
  row: number;
  column?: string;
  message: string;
}

/** Our wording of csv-parse's syntax errors, for the officer who exported the sheet. */
const SYNTAX_MESSAGES: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  INVALID_OPENING_QUOTE: 'a quote in the middle of a field (quote the whole field and double inner quotes)',
  CSV_INVALID_CLOSING_QUOTE: 'text after a closing quote',
};

/**
 * Rows of fields with the line each starts on; blank lines are skipped, rows may differ in length (the caller
 * reports that). Throws CsvSyntaxError on an unterminated quote or text after a closing quote.
 */
export function parseCsv(text: string): { rows: string[][]; lines: number[] } {
  const rows: string[][] = [];
  const lines: number[] = [];
  // Every line is a record here (empty ones too), so a record starts on the line after the previous one ends.
  let lastLine = 0;
  try {
    // Every line break becomes LF first: csv-parse counts a CRLF inside a quoted field as two lines.
    parse(text.replace(/\r\n?/g, '\n'), {
      bom: true, // spreadsheet exports start with one
      trim: true, // blanks around a field and its quotes
      relax_column_count: true,
      record_delimiter: '\n',
      on_record: (record: string[], { lines: end }) => {
        if (!(record.length === 1 && record[0] === '')) {
          rows.push(record);
          lines.push(lastLine + 1);
        }
        lastLine = end;
        return null;
      },
    });
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    // A quote that never closes runs to the end of the file: name the line where its record starts.
    const line = err.code === 'CSV_QUOTE_NOT_CLOSED' ? lastLine + 1 : (err.lines as number);
    throw new CsvSyntaxError(line, SYNTAX_MESSAGES[err.code] ?? err.message);
  }
  return { rows, lines };
}

export class CsvSyntaxError extends Error {
  constructor(readonly line: number, message: string) {
    super(message);
    this.name = 'CsvSyntaxError';
  }
}

export interface CheckinRow {
  /** Line of the file. */
  row: number;
  email: string | null;
  chatUserId: string | null;
  studentId: string | null;
  points: number;
}

export const CHECKIN_MAX_ROWS = 5000;
// local@domain with a dot inside the domain (not its first or last character), the domain read as its first
// character, the characters up to the next dot, that dot and the rest: `[^…]+\.[^…]+` could split a run of dots
// every way and tried each (quadratic).
const EMAIL = /^[^\s@,;"<>]+@[^\s@,;"<>][^\s@,;"<>.]*\.[^\s@,;"<>]+$/;
const SNOWFLAKE = /^\d{15,21}$/;
const KNOWN = ['email', 'chat_user_id', 'student_id', 'points'] as const;
const ALIASES: Record<string, (typeof KNOWN)[number]> = {
  email: 'email', 'e-mail': 'email', email_address: 'email', 'email address': 'email',
  chat_user_id: 'chat_user_id', discord_id: 'chat_user_id', 'discord id': 'chat_user_id',
  student_id: 'student_id', 'student id': 'student_id',
  points: 'points',
};

/**
 * Check a check-in sheet. Header row first (names case-insensitive, any order, unknown columns ignored): `email`
 * and/or `chat_user_id` (each row needs one of them), optional `student_id`, optional `points` (a whole number
 * overriding the default for that row). Answers every row, or every problem.
 */
export function readCheckins(text: string, defaultPoints: number): { rows: CheckinRow[]; problems: CsvProblem[] } {
  let parsed: ReturnType<typeof parseCsv>;
  try {
    parsed = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvSyntaxError) return { rows: [], problems: [{ row: err.line, message: err.message }] };
    throw err;
  }
  const [header, ...data] = parsed.rows;
  if (!header) return { rows: [], problems: [{ row: 1, message: 'the file is empty; the first line must name the columns (email, chat_user_id, student_id, points)' }] };
  const columns = new Map<(typeof KNOWN)[number], number>();
  const problems: CsvProblem[] = [];
  header.forEach((name, i) => {
    const key = ALIASES[name.trim().toLowerCase()];
    if (!key) return;
    if (columns.has(key)) problems.push({ row: 1, column: key, message: `the column ${key} appears twice` });
    else columns.set(key, i);
  });
  if (!columns.has('email') && !columns.has('chat_user_id')) {
    problems.push({ row: 1, message: 'the header needs an email or chat_user_id column' });
  }
  if (data.length === 0) problems.push({ row: 1, message: 'the file has no check-in rows' });
  if (data.length > CHECKIN_MAX_ROWS) problems.push({ row: 1, message: `the file has ${data.length} rows; at most ${CHECKIN_MAX_ROWS} per upload` });
  if (problems.length) return { rows: [], problems };

  const rows: CheckinRow[] = [];
  data.forEach((fields, i) => {
    const line = parsed.lines[i + 1]!;
    if (fields.length !== header.length) {
      problems.push({ row: line, message: `has ${fields.length} fields; the header has ${header.length}` });
      return;
    }
    const get = (key: (typeof KNOWN)[number]) => {
      const at = columns.get(key);
      const value = at === undefined ? '' : fields[at]!.trim();
      return value === '' ? null : value;
    };
    const email = get('email')?.toLowerCase() ?? null;
    const chatUserId = get('chat_user_id');
    const studentId = get('student_id');
    const pointsText = get('points');
    let ok = true;
    const bad = (column: string, message: string) => { problems.push({ row: line, column, message }); ok = false; };
    if (!email && !chatUserId) bad(columns.has('email') ? 'email' : 'chat_user_id', 'needs an email or a chat_user_id');
    if (email && (email.length > 320 || !EMAIL.test(email))) bad('email', `"${email}" is not an email address`);
    if (chatUserId && !SNOWFLAKE.test(chatUserId)) bad('chat_user_id', `"${chatUserId}" is not a Discord user id (15 to 21 digits)`);
    if (studentId && studentId.length > 64) bad('student_id', 'is longer than 64 characters');
    let points = defaultPoints;
    if (pointsText !== null) {
      points = Number(pointsText);
      if (!/^\d+$/.test(pointsText) || !Number.isSafeInteger(points) || points < 1 || points > 100_000) {
        bad('points', `"${pointsText}" is not a whole number of points from 1 to 100000`);
      }
    }
    if (ok) rows.push({ row: line, email, chatUserId, studentId, points });
  });
  return { rows, problems };
}
