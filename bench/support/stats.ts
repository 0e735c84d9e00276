/** Percentiles, medians and spread: every figure in RESULTS.md is a median with its spread. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: readonly number[]) => percentile(values, 50);

export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function spread(values: readonly number[], digits = 2): Spread {
  const round = (v: number) => Number(v.toFixed(digits));
  return { median: round(median(values)), min: round(Math.min(...values)), max: round(Math.max(...values)), n: values.length };
}

/** "4.1 (3.9–4.6, n=3)" */
export function fmt(s: Spread, unit = ''): string {
  if (s.n <= 1) return `${s.median}${unit}`;
  return `${s.median}${unit} (${s.min}–${s.max}, n=${s.n})`;
}
