// The failed-authentication limiter: blocks an address past its limit for the rest of its minute,
// forgets old windows, and at 100,000 tracked addresses finds each one by key, never by a sweep.
import t from 'tap';
import { FailureLimit } from '../../src/auth/failure-limiter.js';

const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

t.test('an address is blocked after its limit until its minute has passed', async (t) => {
  const limiter = new FailureLimit(3);
  const start = 1_000_000;
  for (let i = 0; i < 3; i++) {
    t.equal(await limiter.blockedFor('a', start + i), 0, `not blocked before failure ${i + 1}`);
    await limiter.recordFailure('a', start + i);
  }
  t.equal(await limiter.blockedFor('a', start + 10), 60, 'blocked for the rest of the minute, in whole seconds');
  t.equal(await limiter.blockedFor('a', start + 59_001), 1);
  t.equal(await limiter.blockedFor('b', start + 10), 0, 'other addresses are not');
  t.equal(await limiter.blockedFor('a', start + 60_000), 0, 'free once the minute has passed');
  await limiter.recordFailure('a', start + 60_000);
  t.equal(await limiter.blockedFor('a', start + 60_001), 0, 'a new window starts with one failure');
});

t.test('a window that began late in one time bucket still lasts its full minute', async (t) => {
  const limiter = new FailureLimit(2);
  await limiter.recordFailure('x', 0); // opens the first bucket
  await limiter.recordFailure('a', 59_000);
  await limiter.recordFailure('a', 61_000); // a later bucket: the window of 59_000 still counts
  t.equal(await limiter.blockedFor('a', 100_000), 19, 'blocked until 119_000');
  t.equal(await limiter.blockedFor('a', 119_000), 0);
});

t.test('addresses not seen for two minutes are forgotten: memory follows recent failures', async (t) => {
  const limiter = new FailureLimit(30);
  for (let i = 0; i < 1000; i++) await limiter.recordFailure(address(i), i);
  t.equal(limiter.tracked, 1000);
  await limiter.recordFailure('late', 125_000);
  t.equal(limiter.tracked, 1, 'only the address of the last two minutes is kept');
});

t.test('100,000 addresses failing: no failure visits the other addresses (the cost per failure stays flat)', async (t) => {
  // Counted, not timed: a sweep of the table on each new address, the cost that grew with the
  // number of addresses, iterates a Map; a failure that finds its own window by key iterates none.
  // How fast authentication is under load is the benchmark's (docs/benchmarks.md).
  const limiter = new FailureLimit(30);
  const now = Date.now();
  let iterations = 0;
  const prototype = Map.prototype as unknown as Record<PropertyKey, (...args: unknown[]) => unknown>;
  const methods = [Symbol.iterator, 'entries', 'keys', 'values', 'forEach'] as const;
  const originals = methods.map((name) => prototype[name]!);
  methods.forEach((name, i) => {
    prototype[name] = function (this: unknown, ...args: unknown[]) {
      iterations++;
      return originals[i]!.apply(this, args);
    };
  });
  try {
    for (let i = 0; i < 100_000; i++) {
      await limiter.blockedFor(address(i), now);
      await limiter.recordFailure(address(i), now);
      if (iterations > 0) break; // a sweep: it would take minutes to finish
    }
  } finally {
    methods.forEach((name, i) => (prototype[name] = originals[i]!));
  }
  t.equal(iterations, 0, 'no Map was iterated while 100,000 new addresses failed');
  t.equal(limiter.tracked, 100_000, 'all 100,000 addresses recorded');
  t.equal(await limiter.blockedFor(address(99_999), now), 0);
  for (let i = 0; i < 30; i++) await limiter.recordFailure(address(99_999), now);
  t.ok((await limiter.blockedFor(address(99_999), now)) > 0, 'and still counts correctly');
});

t.test('a window adopted from a shared count (Redis) replaces the local one, and a count of 0 forgets it', async (t) => {
  const limiter = new FailureLimit(3);
  t.notOk(limiter.knows('a', 1000), 'an address that never failed is not known');
  await limiter.recordFailure('a', 1000);
  t.ok(limiter.knows('a', 1000));
  limiter.adopt('a', 3, 31_000, 2000);
  t.equal(await limiter.blockedFor('a', 2000), 29, "blocked: the shared count and its window's end");
  limiter.adopt('a', 1, 31_000, 2000);
  t.equal(await limiter.blockedFor('a', 2000), 0, 'the shared count decides, down as well as up');
  t.ok(limiter.knows('a', 30_999));
  t.notOk(limiter.knows('a', 31_000), 'until its window ends');
  limiter.adopt('a', 0, 0, 2000);
  t.notOk(limiter.knows('a', 2000), 'no shared window: forgotten');
  await limiter.recordFailure('b', 1000);
  limiter.adopt('b', 2, 100_000, 70_000); // a new bucket: 'b' of 1000 moves to the previous one, and is replaced
  await limiter.recordFailure('b', 70_000);
  t.equal(await limiter.blockedFor('b', 70_001), 30, 'counts on from the adopted window');
  t.equal(limiter.tracked, 1, 'held once, not in both buckets');
});
