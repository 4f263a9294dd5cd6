// Zipf's law for the realistic mix: shares by rank, running sums, and the draw that picks a rank.
import t from 'tap';
import { cumulative, pick, zipfWeights } from '../../bench/zipf.js';

t.test('shares fall as 1/k and sum to 1', async (t) => {
  const weights = zipfWeights(50);
  const harmonic = Array.from({ length: 50 }, (_, i) => 1 / (i + 1)).reduce((a, b) => a + b, 0);
  t.equal(weights.length, 50);
  t.ok(Math.abs(weights.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  t.ok(Math.abs(weights[0]! - 1 / harmonic) < 1e-12, 'the busiest user: 1 / H(50), about 22%');
  t.ok(Math.abs(weights[0]! / weights[9]! - 10) < 1e-9, 'rank 1 gets ten times rank 10');
  const steeper = zipfWeights(50, 2);
  t.ok(steeper[0]! > weights[0]!, 'a larger exponent concentrates the traffic');
});

t.test('a draw picks the first rank whose running sum exceeds it', async (t) => {
  const sums = cumulative([0.5, 0.25, 0.25]);
  t.same(sums, [0.5, 0.75, 1]);
  t.equal(pick(sums, 0), 0);
  t.equal(pick(sums, 0.4999), 0);
  t.equal(pick(sums, 0.5), 1, 'a boundary belongs to the next rank');
  t.equal(pick(sums, 0.75), 2);
  t.equal(pick(sums, 0.999999), 2);
  t.equal(cumulative(zipfWeights(50)).at(-1), 1, 'the last sum is exactly 1, whatever the rounding');
});
