// Counts failed authentications per client address in fixed one-minute windows,
// so token guessing is slowed to a handful of tries a minute.

const WINDOW_MS = 60_000;
const SWEEP_AT = 10_000;

export class FailureLimiter {
  // A Map, not an object: an address can never collide with a prototype property.
  readonly #windows = new Map<string, { count: number; resetAt: number }>();

  constructor(readonly maxPerWindow: number) {}

  /** Seconds until `address` may try again, or 0 when it is not blocked. */
  blockedFor(address: string, now = Date.now()): number {
    const window = this.#windows.get(address);
    if (!window || window.resetAt <= now || window.count < this.maxPerWindow) return 0;
    return Math.ceil((window.resetAt - now) / 1000);
  }

  recordFailure(address: string, now = Date.now()): void {
    const window = this.#windows.get(address);
    if (window && window.resetAt > now) {
      window.count++;
      return;
    }
    if (this.#windows.size >= SWEEP_AT) this.#sweep(now);
    this.#windows.set(address, { count: 1, resetAt: now + WINDOW_MS });
  }

  #sweep(now: number): void {
    for (const [address, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(address);
  }
}
