// The order of each round: every contestant once, and over a full cycle each one right after every other one equally often.
import t from 'tap';
import { roundOrder } from '../../bench/round-order.js';

/** How often `b` runs right after `a` within the rounds 1 to `rounds`, keyed "a>b". */
function followers(count: number, rounds: number): Map<string, number> {
  const seen = new Map<string, number>();
  for (let round = 1; round <= rounds; round++) {
    const order = roundOrder(count, round);
    for (let i = 1; i < order.length; i++) {
      const pair = `${order[i - 1]}>${order[i]}`;
      seen.set(pair, (seen.get(pair) ?? 0) + 1);
    }
  }
  return seen;
}

t.test('each round runs every contestant once', async (t) => {
  for (const count of [1, 2, 3, 4, 5, 6, 7]) {
    for (let round = 1; round <= 3 * count; round++) {
      t.same(
        [...roundOrder(count, round)].sort((a, b) => a - b),
        [...Array(count).keys()],
        `${count} contestants, round ${round}`,
      );
    }
  }
});

t.test('over a cycle, each contestant runs right after every other one the same number of times', async (t) => {
  for (const count of [2, 3, 4, 5, 6, 7]) {
    const cycle = count % 2 === 0 ? count : 2 * count;
    const seen = followers(count, cycle);
    t.equal(seen.size, count * (count - 1), `${count}: every ordered pair occurs`);
    t.same(new Set(seen.values()), new Set([cycle / count]), `${count}: each ${cycle / count} time(s)`);
    // The next cycle repeats the first.
    for (let round = 1; round <= cycle; round++) t.same(roundOrder(count, round + cycle), roundOrder(count, round));
  }
});
