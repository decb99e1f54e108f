/** @module Printing benchmark results as Markdown tables. */

export interface BenchTable {
  title: string;
  columns: string[];
  rows: (string | number)[][];
  /** Lines printed under the table (goals, notes). */
  notes?: string[];
}

export function printTable({ title, columns, rows, notes }: BenchTable): void {
  const cells = [columns, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? format(c) : c)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: (string | number)[]) => `| ${r.map((c, i) => String(c ?? '').padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(`### ${title}\n`);
  console.log(line(columns));
  console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
  for (const r of cells.slice(1)) console.log(line(r));
  for (const note of notes ?? []) console.log(`\n${note}`);
  console.log('');
}

function format(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toFixed(3);
}

/** The q-quantile (0..1) of unsorted samples. */
export function quantile(samples: number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? NaN;
}
