// The rate limits' counters in Redis, shared by every instance: @fastify/rate-limit's own RedisStore (its
// INCR+PEXPIRE and read scripts, one round trip each) on the service's ioredis client. What the store
// does not do is here: a failure is reported (store-outage.ts) and answered undefined, so limits fail
// open; and after one, Redis is not asked for a second, so a hung Redis delays one request a second,
// not every request (with ioredis's 500 ms command timeout, each request would wait 500 ms).
import { createRequire } from 'node:module';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import type { LimitName, StoreOutage } from './store-outage.js';

/** A key's window: hits so far and milliseconds until it ends (0 and 0 when it has none). */
export interface Counted {
  current: number;
  ttl: number;
}
type Incr = FastifyRateLimitStore['incr'];
// Not in the package's type declarations, but its own module (store/RedisStore.js), used as the plugin uses it.
const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  keyPrefix: string,
) => { incr: Incr; read: Incr };

/** After a failed call, calls are not tried for this long (unless the connection is ready again first). */
export const PAUSE_AFTER_FAILURE_MS = 1000;

export class SharedCounters {
  readonly #store;
  #pausedUntil = 0;
  #pausedBy: Error | undefined;

  constructor(
    client: Redis,
    keyPrefix: string,
    private readonly outage: StoreOutage,
  ) {
    this.#store = new RedisStore(false, false, client, keyPrefix);
    client.on('ready', () => (this.#pausedUntil = 0));
  }

  /** Counts one hit on `key` in a window of `windowMs`, or undefined when Redis failed. */
  hit(limit: LimitName, key: string, windowMs: number): Promise<Counted | undefined> {
    return this.#call(limit, (done) => this.#store.incr(key, done, windowMs, 0));
  }

  /** The window of `key` without counting, or undefined when Redis failed. */
  peek(limit: LimitName, key: string): Promise<Counted | undefined> {
    return this.#call(limit, (done) => this.#store.read(key, done, 0, 0));
  }

  /** The per-token limit's store for @fastify/rate-limit: a failure, already reported, is an error the plugin skips (skipOnError). */
  tokenStore(): FastifyRateLimitStoreCtor {
    const hit = (key: string, windowMs: number) => this.hit('token', key, windowMs);
    return class TokenStore implements FastifyRateLimitStore {
      incr(key: string, done: Parameters<Incr>[1], windowMs: number): void {
        void hit(key, windowMs).then((counted) => (counted ? done(null, counted) : done(new Error('the shared rate-limit store failed'))));
      }
      // One limit for every route of the scope: no per-route store.
      child(): FastifyRateLimitStore {
        return this;
      }
    };
  }

  async #call(limit: LimitName, call: (done: Parameters<Incr>[1]) => void): Promise<Counted | undefined> {
    if (this.#pausedBy !== undefined && Date.now() < this.#pausedUntil) {
      this.outage.callFailed(limit, this.#pausedBy);
      return undefined;
    }
    try {
      const counted = await new Promise<Counted>((resolve, reject) =>
        call((error, result) => (result ? resolve(result) : reject(error ?? new Error('Redis answered nothing')))),
      );
      this.outage.answered();
      return counted;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.#pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
      this.#pausedBy = new Error(`not asked: Redis failed less than ${PAUSE_AFTER_FAILURE_MS} ms ago (${failure.message})`);
      this.outage.callFailed(limit, failure);
      return undefined;
    }
  }
}
