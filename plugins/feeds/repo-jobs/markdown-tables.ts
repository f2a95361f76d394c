// Finds the pipe tables of a Markdown document: a header line, a delimiter line (`| --- | :---: |`), then body lines
// up to the first line without a pipe. Cells are split on unescaped pipes and trimmed; nothing inside them is
// interpreted here.

import type { TextTable } from './text-table.js';

// Tested on the trimmed line: outer `\s*` next to `\|?\s*` could share a long blank line's spaces every way, and
// each way was tried (quadratic).
const DELIMITER = /^\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?$/;

/** The cells of one table line: outer pipes dropped, `\|` kept as a literal pipe inside a cell. */
export function splitCells(line: string): string[] {
  let text = line.trim();
  if (text.startsWith('|')) text = text.slice(1);
  if (text.endsWith('|') && !text.endsWith('\\|')) text = text.slice(0, -1);
  return text.split(/(?<!\\)\|/).map((cell) => cell.replace(/\\\|/g, '|').trim());
}

export function findTables(markdown: string): TextTable[] {
  const lines = markdown.split(/\r?\n/);
  const tables: TextTable[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i].includes('|') || !DELIMITER.test(lines[i + 1].trim())) continue;
    const header = splitCells(lines[i]);
    // As in GFM, the delimiter has one cell per header cell; otherwise `text | more` over a `---` rule is no table.
    if (splitCells(lines[i + 1]).length !== header.length) continue;
    const table: TextTable = { line: i + 1, header, rows: [] };
    let j = i + 2;
    for (; j < lines.length && lines[j].includes('|') && lines[j].trim() !== ''; j++) {
      table.rows.push({ line: j + 1, cells: splitCells(lines[j]) });
    }
    tables.push(table);
    i = j - 1;
  }
  return tables;
}
