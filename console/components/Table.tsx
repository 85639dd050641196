// A data table: a caption, column headers with scope="col", the first cell of each row a row header. At narrow
// widths (390 px) the rows stack, each cell labelled by its column (data-label, shown by the stylesheet).
import type { ComponentChildren } from 'preact'

export interface Column<T> {
  label: string
  /** The cell's content. */
  cell: (row: T) => ComponentChildren
}

export function Table<T>({
  caption,
  columns,
  rows,
  rowKey,
  id,
  rowAttributes
}: {
  caption: ComponentChildren
  columns: Column<T>[]
  rows: T[]
  rowKey: (row: T) => string
  id?: string
  /** Extra attributes per row (e.g. data-id for tests and styles). */
  rowAttributes?: (row: T) => Record<string, string>
}) {
  return (
    <table class="table stack" id={id}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col">{c.label}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} {...(rowAttributes?.(row) ?? {})}>
            {columns.map((c, i) =>
              i === 0 ? (
                <th scope="row" data-label={c.label}>
                  {c.cell(row)}
                </th>
              ) : (
                <td data-label={c.label}>{c.cell(row)}</td>
              )
            )}
          </tr>
        ))}
      </tbody>
    </table>
  )
}
