import type { ReactNode } from 'react';

export interface Column<T> {
  /** The column's header. */
  header: ReactNode;
  /** The cell: a field of the row, or a function of it. */
  cell: keyof T | ((row: T) => ReactNode);
  /** Right-align numbers. Default: false. */
  numeric?: boolean;
}

/**
 * A data table with a caption (read by screen readers; shown when `showCaption`):
 * `<Table caption="Greetings" rows={rows} rowKey={(g) => g.id} columns={[{ header: 'Name', cell: 'name' }]} />`.
 */
export function Table<T>({ caption, showCaption = false, columns, rows, rowKey }: {
  caption: string; showCaption?: boolean; columns: Column<T>[]; rows: readonly T[]; rowKey: (row: T) => string | number;
}) {
  return (
    <div className="q-table-wrap">
      <table className="q-table">
        <caption className={showCaption ? 'q-table-caption' : 'q-visually-hidden'}>{caption}</caption>
        <thead>
          <tr>{columns.map((c, i) => <th key={i} scope="col" className={c.numeric ? 'q-numeric' : undefined}>{c.header}</th>)}</tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c, i) => (
                <td key={i} className={c.numeric ? 'q-numeric' : undefined}>
                  {typeof c.cell === 'function' ? c.cell(row) : String(row[c.cell] ?? '')}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
