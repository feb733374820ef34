/**
 * The median, once for the house: the usual level of a figure (insights' anomalies,
 * warehouse/compare.ts) and the clock offset several answers agree on (clock-skew.ts).
 */

/** The median of `values` (the mean of the two middle values of an even count); NaN of none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
