// Finds the HTML tables of a README: the SimplifyJobs lists write `<table><thead><tr><th>Company</th>…` with one
// `<tr>` of `<td>` cells per role. Each table gives its header cells and its body rows, every cell's inner HTML
// untouched (cell-text.ts reads it) and the README line each row starts on.
//
// One pass over the tags, linear in the text: tags are found with index scans (no pattern reads across tags), the
// `>` that ends a tag is looked up once for every `<` before it, cells and rows left open end at the next cell, row
// or table tag, and a table never closed ends with the text. Only table, tr, th and td tags matter; anything else
// is cell content. A `<table>` inside a table is content too (the lists nest none).
import type { TableRow, TextTable } from './text-table.js';

const STRUCTURE = new Set(['table', 'tr', 'th', 'td']);

interface Tag { name: string; closing: boolean; start: number; end: number }

/** The table, tr, th and td tags of `html` in order; `end` is just past the tag's `>`. */
function* structureTags(html: string): Generator<Tag> {
  let nextGt = -1;
  for (let at = html.indexOf('<'); at !== -1; at = html.indexOf('<', at + 1)) {
    const closing = html[at + 1] === '/';
    let nameEnd = at + (closing ? 2 : 1);
    const nameStart = nameEnd;
    while (nameEnd < html.length && nameEnd - nameStart < 6 && /[a-zA-Z]/.test(html[nameEnd]!)) nameEnd++;
    const name = html.slice(nameStart, nameEnd).toLowerCase();
    if (!STRUCTURE.has(name)) continue;
    const after = html[nameEnd];
    if (after !== '>' && after !== '/' && !/\s/.test(after ?? '')) continue; // `<trace>`, `<tdx>`: not ours
    if (nextGt < nameEnd) nextGt = html.indexOf('>', nameEnd);
    if (nextGt === -1) return; // no later tag is closed either
    yield { name, closing, start: at, end: nextGt + 1 };
    at = nextGt;
  }
}

interface OpenRow { line: number; cells: string[]; headerCells: number }

export function findHtmlTables(text: string): TextTable[] {
  const tables: TextTable[] = [];
  let table: TextTable | null = null;
  let row: OpenRow | null = null;
  let cell: { from: number; header: boolean } | null = null;

  // Line numbers: positions only grow, so each newline is passed once (the next one is remembered, not searched
  // for again: in a text without newlines every search would scan to the end).
  let line = 1;
  let nextNewline = text.indexOf('\n');
  const lineAt = (position: number) => {
    while (nextNewline !== -1 && nextNewline < position) {
      line++;
      nextNewline = text.indexOf('\n', nextNewline + 1);
    }
    return line;
  };

  const endCell = (at: number) => {
    if (!cell || !row) return;
    row.cells.push(text.slice(cell.from, at).trim());
    if (cell.header) row.headerCells++;
    cell = null;
  };
  const endRow = (at: number) => {
    endCell(at);
    if (!row || !table) return;
    // The first row of header cells is the header; without one, the first row is (then it rarely names the columns,
    // and the table is not a job table).
    const isHeader = table.header.length === 0 && (row.headerCells === row.cells.length || table.rows.length === 0);
    if (row.cells.length > 0) {
      if (isHeader) {
        table.header = row.cells;
        table.line = row.line;
      } else {
        table.rows.push({ line: row.line, cells: row.cells } satisfies TableRow);
      }
    }
    row = null;
  };
  const endTable = (at: number) => {
    endRow(at);
    if (table) tables.push(table);
    table = null;
  };

  for (const tag of structureTags(text)) {
    if (tag.name === 'table') {
      if (tag.closing) endTable(tag.start);
      else if (!table) table = { line: lineAt(tag.start), header: [], rows: [] };
      continue;
    }
    if (!table) continue;
    if (tag.name === 'tr') {
      endRow(tag.start);
      if (!tag.closing) row = { line: lineAt(tag.start), cells: [], headerCells: 0 };
      continue;
    }
    // th, td
    endCell(tag.start);
    if (tag.closing) continue;
    row ??= { line: lineAt(tag.start), cells: [], headerCells: 0 };
    cell = { from: tag.end, header: tag.name === 'th' };
  }
  endTable(text.length);
  return tables;
}
