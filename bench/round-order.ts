// The order in which one round measures its contestants: a Williams design (a balanced Latin square).

/**
 * Round `round` (1, 2, ...) of `count` contestants: their indexes in the order to run them. Each contestant
 * runs right after every other one equally often within `count` rounds (`2 × count` when the count is
 * odd), so whatever one run leaves for the next (writeback of its files, a busy neighbour, its GC) lands
 * on everyone alike. A plain rotation kept each contestant after the same neighbour in every round: in
 * the realistic mix plant-store always ran after express-peer and plant-store+metrics always after
 * plant-store, and plant-store ran faster than its own twin in all 12 rounds of six runs in a row (1.01 to 1.68 ×).
 */
export function roundOrder(count: number, round: number): number[] {
  // 0, 1, n-1, 2, n-2, ...: successive differences take every value mod n once.
  const first = Array.from({ length: count }, (_, j) => (j % 2 === 1 ? (j + 1) / 2 : (count - j / 2) % count));
  const row = (round - 1) % (count % 2 === 0 ? count : 2 * count);
  const order = first.map((index) => (index + row) % count);
  return row >= count ? order.reverse() : order;
}
