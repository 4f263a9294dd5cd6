// The failed-authentication limit counted in Redis, so it holds for every instance together: a
// failure costs one round trip (INCR and PEXPIRE in one script), and a request costs none unless
// its address failed on this instance within the window (then one read, to see the others' failures).
import type { RedisWindows } from '../limits/redis-windows.js';
import { FailureLimiter } from './failure-limiter.js';

const WINDOW_MS = 60_000;

/** Answers like FailureLimiter; a promise only when Redis must be asked. It never rejects: on a Redis failure it falls back to this instance's own count. */
export interface FailureLimit {
  /** Seconds until `address` may try again, or 0 when it is not blocked. */
  blockedFor(address: string): number | Promise<number>;
  recordFailure(address: string): void | Promise<void>;
}

/**
 * This instance keeps a copy of the windows of the addresses it saw fail, as Redis last counted them
 * (a FailureLimiter, so its cost stays constant however many addresses fail). An address with no
 * window here is let through without asking Redis: most requests come from addresses that never
 * fail, and they pay nothing. The price: an instance that has not seen an address fail in the
 * current window lets its first request reach authentication even when the other instances have
 * used the limit up, so N instances allow at most the limit plus N - 1 tries a window; the first
 * failure then tells this instance the shared count.
 */
export class SharedFailureLimiter implements FailureLimit {
  readonly #seen: FailureLimiter;

  constructor(
    readonly maxPerWindow: number,
    private readonly windows: RedisWindows,
  ) {
    this.#seen = new FailureLimiter(maxPerWindow);
  }

  blockedFor(address: string): number | Promise<number> {
    const now = Date.now();
    const known = this.#seen.blockedFor(address, now);
    if (known > 0 || !this.#seen.knows(address, now)) return known;
    return this.windows.peek('auth-failures', key(address)).then((window) => {
      // Redis failed: this instance's own copy decides (it was not blocked).
      if (window === undefined) return 0;
      const at = Date.now();
      this.#seen.adopt(address, window.count, at + window.ttlMs, at);
      return this.#seen.blockedFor(address, at);
    });
  }

  async recordFailure(address: string): Promise<void> {
    const window = await this.windows.hit('auth-failures', key(address), WINDOW_MS);
    // Redis failed: count on in this instance's memory, so guessing is still slowed while it is away.
    if (window === undefined) {
      this.#seen.recordFailure(address);
      return;
    }
    const now = Date.now();
    this.#seen.adopt(address, window.count, now + window.ttlMs, now);
  }
}

const key = (address: string) => `rl:auth:${address}`;
