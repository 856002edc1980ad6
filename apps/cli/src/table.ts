/** A plain-text table for people: a header row, left-aligned columns two spaces apart. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return cells
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Key/value lines for one record, keys aligned. */
export function details(entries: [string, string | number | undefined][]): string {
  const shown = entries.filter(([, value]) => value !== undefined && value !== '');
  const width = Math.max(...shown.map(([key]) => key.length));
  return shown.map(([key, value]) => `${`${key}:`.padEnd(width + 1)}  ${value}`).join('\n');
}
