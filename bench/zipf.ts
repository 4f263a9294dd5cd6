// Zipf's law over ranked users: the k-th busiest gets a share proportional to 1 / k^exponent.

/** Shares of `count` ranks (rank 1 first), summing to 1. */
export function zipfWeights(count: number, exponent = 1): number[] {
  const raw = Array.from({ length: count }, (_, i) => 1 / (i + 1) ** exponent);
  const total = raw.reduce((a, b) => a + b, 0);
  return raw.map((value) => value / total);
}

/** Running sums of shares; the last is exactly 1, so every draw in [0, 1) finds a rank. */
export function cumulative(weights: readonly number[]): number[] {
  let sum = 0;
  const sums = weights.map((weight) => (sum += weight));
  if (sums.length > 0) sums[sums.length - 1] = 1;
  return sums;
}

/** The index (0-based) whose running sum first reaches `draw` (0 <= draw < 1): a binary search. */
export function pick(sums: readonly number[], draw: number): number {
  let low = 0;
  let high = sums.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (draw < sums[middle]!) high = middle;
    else low = middle + 1;
  }
  return low;
}
