// The shape both table finders give (Markdown pipe tables, HTML tables): a header, then rows of raw cells with the
// README line each row starts on. Cells keep their markup; cell-text.ts reads them.

export interface TableRow {
  /** 1-based line number in the document, for skip reasons a maintainer can look up. */
  line: number;
  cells: string[];
}

export interface TextTable {
  /** 1-based line of the header row. */
  line: number;
  header: string[];
  rows: TableRow[];
}
