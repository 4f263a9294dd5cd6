// Counters in Redis over fixed windows, shared by every instance that uses the same Redis: the
// per-token limit and the failed-authentication limit count here when REDIS_URL is set. No call
// ever throws: a failure is reported (store-outage.ts) and answered `undefined`, so limits fail open.
import type { Redis, Result } from 'ioredis';
import type { LimitName, StoreOutage } from './store-outage.js';

/** One window of one key: hits so far, and milliseconds until it ends. */
export interface Window {
  count: number;
  ttlMs: number;
}

/** After a failed call, calls are not even tried for this long (unless the connection is ready again first), so a hung Redis delays one request a second at most, not every request. */
export const PAUSE_AFTER_FAILURE_MS = 1000;

// INCR and PEXPIRE in one round trip, atomically: a window starts with its first hit and lasts
// windowMs. A key found without expiry (written by hand, say) is given one, so it cannot block forever.
const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

const PEEK = `
local count = redis.call('GET', KEYS[1])
if not count then return {0, 0} end
return {tonumber(count), redis.call('PTTL', KEYS[1])}`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    plantStoreHit(key: string, windowMs: number): Result<[number, number], Context>;
    plantStorePeek(key: string): Result<[number, number], Context>;
  }
}

export class RedisWindows {
  #pausedUntil = 0;
  #pausedBy: Error | undefined;

  constructor(
    private readonly client: Redis,
    private readonly keyPrefix: string,
    private readonly outage: StoreOutage,
  ) {
    // Sent by hash (EVALSHA), with the script itself only the first time Redis does not know it.
    client.defineCommand('plantStoreHit', { numberOfKeys: 1, lua: HIT });
    client.defineCommand('plantStorePeek', { numberOfKeys: 1, lua: PEEK });
    client.on('ready', () => (this.#pausedUntil = 0));
  }

  /** Counts one hit on `key` and answers its window, or undefined when Redis failed. */
  hit(limit: LimitName, key: string, windowMs: number): Promise<Window | undefined> {
    return this.#call(limit, () => this.client.plantStoreHit(this.keyPrefix + key, windowMs));
  }

  /** The window of `key` without counting (count 0 when there is none), or undefined when Redis failed. */
  peek(limit: LimitName, key: string): Promise<Window | undefined> {
    return this.#call(limit, () => this.client.plantStorePeek(this.keyPrefix + key));
  }

  async #call(limit: LimitName, command: () => Promise<[number, number]>): Promise<Window | undefined> {
    if (this.#pausedBy !== undefined && Date.now() < this.#pausedUntil) {
      this.outage.callFailed(limit, this.#pausedBy);
      return undefined;
    }
    try {
      const [count, ttlMs] = await command();
      this.outage.answered();
      return { count, ttlMs };
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.#pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
      this.#pausedBy = new Error(`not asked: Redis failed less than ${PAUSE_AFTER_FAILURE_MS} ms ago (${failure.message})`);
      this.outage.callFailed(limit, failure);
      return undefined;
    }
  }
}
