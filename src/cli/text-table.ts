import { maxOf } from '../core/max-of.js';

/**
 * A plain-text table: the first and last columns left-aligned (names and labels), the others right-aligned
 * (numbers), a dashed rule before the last row when `totalRow` is set.
 */
export function renderTextTable(header: readonly string[], rows: readonly (readonly string[])[], options: { totalRow?: boolean } = {}): string[] {
  const widths = header.map((title, column) => Math.max(title.length, maxOf(rows.map((row) => (row[column] ?? '').length))));
  const render = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (column === 0 || column === cells.length - 1 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  const lines = [render(header)];
  for (const [index, row] of rows.entries()) {
    if (options.totalRow && index === rows.length - 1) lines.push(render(widths.map((width) => '-'.repeat(width))));
    lines.push(render(row));
  }
  return lines;
}
