/** Rows as aligned columns (the last column is not padded). */
export function table(rows: string[][]): string {
  const visible = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '').length;
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => visible(r[i] ?? '')))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i]! - visible(cell)))).join('  ').trimEnd()).join('\n');
}
