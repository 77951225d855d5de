/** Middle value of `values` (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Nearest-rank percentile (`p` in 0..100) of values that are already sorted ascending:
 * the smallest sample such that at least p% of the samples are less than or equal to it.
 */
export function percentileOfSorted(sorted: Float64Array | readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** How far apart repeated measurements are: max / min − 1 (0 means identical). */
export function spread(values: readonly number[]): number {
  if (values.length < 2) return 0;
  return Math.max(...values) / Math.min(...values) - 1;
}
