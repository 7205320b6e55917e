/** Plain-text tables for benchmark output. */
import type { Summary } from './stats.js';

export const fmt = (v: number, digits = 2): string => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

export const summaryRow = (label: string, concurrency: number, s: Summary): Array<string | number> => [
  label,
  String(concurrency),
  String(s.n),
  s.p50_ms,
  s.p99_ms,
  s.per_s,
];

export const SUMMARY_HEADERS = ['case', 'conc', 'calls', 'p50 ms', 'p99 ms', 'calls/s'];

export function heading(title: string): void {
  console.log(`\n== ${title} ==`);
}
