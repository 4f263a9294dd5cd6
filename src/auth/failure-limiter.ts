// The failed-authentication limit per client address, in fixed one-minute windows, so token guessing is
// slowed to a handful of tries a minute: counted in this instance's memory, and with REDIS_URL in Redis
// too, so it holds for every instance together (@fastify/rate-limit counts requests, not failures).
import type { SharedCounters } from '../limits/shared-counters.js';

const WINDOW_MS = 60_000;

interface Window {
  count: number;
  resetAt: number;
}

/**
 * This instance's windows live in two maps, each holding the windows opened during one minute: the
 * current one and the one before. A window lasts a minute, so once a map is two minutes old every window
 * in it has ended, and the whole map is dropped at once: every failure costs the same, however many
 * addresses are tracked, and no table is ever swept.
 *
 * With Redis, the maps keep the windows of the addresses this instance saw fail, as Redis last counted them.
 * An address with no window here is let through without asking Redis: most requests come from addresses
 * that never fail, and they pay nothing. The price: an instance that has not seen an address fail in the
 * current window lets its first request reach authentication even when the other instances have used the
 * limit up, so N instances allow at most the limit plus N - 1 tries a window; the first failure then tells
 * this instance the shared count. On a Redis failure this instance's own count decides.
 */
export class FailureLimit {
  // Maps, not objects: an address can never collide with a prototype property.
  #current = new Map<string, Window>();
  #previous = new Map<string, Window>();
  /** When the current map began collecting. */
  #currentSince = -Infinity;

  constructor(
    readonly maxPerWindow: number,
    private readonly shared?: SharedCounters,
  ) {}

  /** Seconds until `address` may try again, or 0 when it is not blocked. */
  async blockedFor(address: string, now = Date.now()): Promise<number> {
    const known = this.#blockedFor(address, now);
    if (known > 0 || this.shared === undefined || !this.knows(address, now)) return known;
    const counted = await this.shared.peek('auth-failures', key(address));
    // Redis failed: this instance's own copy decides (it was not blocked).
    if (counted === undefined) return 0;
    const at = Date.now();
    this.adopt(address, counted.current, at + counted.ttl, at);
    return this.#blockedFor(address, at);
  }

  async recordFailure(address: string, at?: number): Promise<void> {
    const counted = await this.shared?.hit('auth-failures', key(address), WINDOW_MS);
    const now = at ?? Date.now();
    if (counted !== undefined) {
      this.adopt(address, counted.current, now + counted.ttl, now);
      return;
    }
    // No Redis, or it failed: count in this instance's memory, so guessing is still slowed.
    this.#rotate(now);
    const window = this.#find(address, now);
    if (window) window.count++;
    else this.#current.set(address, { count: 1, resetAt: now + WINDOW_MS });
  }

  /** Whether `address` has a window that has not ended: it failed recently. */
  knows(address: string, now = Date.now()): boolean {
    return this.#find(address, now) !== undefined;
  }

  /** Takes `address`'s window as another counter saw it (Redis's count for every instance). */
  adopt(address: string, count: number, resetAt: number, now = Date.now()): void {
    this.#rotate(now);
    this.#previous.delete(address);
    if (count > 0 && resetAt > now) this.#current.set(address, { count, resetAt });
    else this.#current.delete(address);
  }

  /** Addresses remembered now; at most those with a failure in the last two minutes. */
  get tracked(): number {
    return this.#current.size + this.#previous.size;
  }

  #blockedFor(address: string, now: number): number {
    const window = this.#find(address, now);
    if (!window || window.count < this.maxPerWindow) return 0;
    return Math.ceil((window.resetAt - now) / 1000);
  }

  /** The address's window if it has not ended. */
  #find(address: string, now: number): Window | undefined {
    const window = this.#current.get(address) ?? this.#previous.get(address);
    return window !== undefined && window.resetAt > now ? window : undefined;
  }

  #rotate(now: number): void {
    if (now - this.#currentSince < WINDOW_MS) return;
    // After two quiet minutes the current map's windows have all ended too.
    this.#previous = now - this.#currentSince < 2 * WINDOW_MS ? this.#current : new Map<string, Window>();
    this.#current = new Map<string, Window>();
    this.#currentSince = now;
  }
}

const key = (address: string) => `rl:auth:${address}`;
