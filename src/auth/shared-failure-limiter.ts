// The failed-authentication limit per client address: counted in this instance's memory, and with
// REDIS_URL in Redis too, so it holds for every instance together. The one limit @fastify/rate-limit
// cannot count (it counts requests, not failures). With Redis, a failure costs one round trip, and a
// request none unless its address failed on this instance within the window (then one read, to see
// the others' failures).
import type { SharedCounters } from '../limits/shared-counters.js';
import { FailureLimiter } from './failure-limiter.js';

const WINDOW_MS = 60_000;

/**
 * This instance keeps the windows of the addresses it saw fail, as Redis last counted them (a
 * FailureLimiter, so its cost stays constant however many addresses fail). An address with no window
 * here is let through without asking Redis: most requests come from addresses that never fail, and
 * they pay nothing. The price: an instance that has not seen an address fail in the current window
 * lets its first request reach authentication even when the other instances have used the limit up,
 * so N instances allow at most the limit plus N - 1 tries a window; the first failure then tells this
 * instance the shared count. It never rejects: on a Redis failure this instance's own count decides.
 */
export class FailureLimit {
  readonly #seen: FailureLimiter;

  constructor(
    readonly maxPerWindow: number,
    private readonly shared: SharedCounters | undefined,
  ) {
    this.#seen = new FailureLimiter(maxPerWindow);
  }

  /** Seconds until `address` may try again, or 0 when it is not blocked. */
  async blockedFor(address: string): Promise<number> {
    const now = Date.now();
    const known = this.#seen.blockedFor(address, now);
    if (known > 0 || this.shared === undefined || !this.#seen.knows(address, now)) return known;
    const counted = await this.shared.peek('auth-failures', key(address));
    // Redis failed: this instance's own copy decides (it was not blocked).
    if (counted === undefined) return 0;
    const at = Date.now();
    this.#seen.adopt(address, counted.current, at + counted.ttl, at);
    return this.#seen.blockedFor(address, at);
  }

  async recordFailure(address: string): Promise<void> {
    const counted = await this.shared?.hit('auth-failures', key(address), WINDOW_MS);
    // No Redis, or it failed: count in this instance's memory, so guessing is still slowed.
    if (counted === undefined) this.#seen.recordFailure(address);
    else this.#seen.adopt(address, counted.current, Date.now() + counted.ttl);
  }
}

const key = (address: string) => `rl:auth:${address}`;
