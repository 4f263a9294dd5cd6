// The rate limits' counters in Redis, shared by every instance: @fastify/rate-limit's own RedisStore (its
// INCR+PEXPIRE and read scripts, one round trip each) on an ioredis client set up so that a dead or hung
// Redis never holds a request up. A failure is answered undefined, so limits fail open, and warned of
// once per outage; after one, Redis is not asked again for a second, so a hung Redis delays one request
// a second, not every request by the command timeout.
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { rateLimitStoreErrors, type RateLimitStoreError } from '../channels.js';

/** Longest wait for a command's answer. Redis answers in well under a millisecond; this is the bound a hung one adds. */
export const COMMAND_TIMEOUT_MS = 500;
/** Longest wait for a connection (TCP and TLS) to open. */
const CONNECT_TIMEOUT_MS = 1000;
/** After a failed call, calls are not tried for this long (unless the connection is ready again first). */
const PAUSE_AFTER_FAILURE_MS = 1000;

/** A key's window: hits so far and milliseconds until it ends (0 and 0 when it has none). */
export interface Counted {
  current: number;
  ttl: number;
}
type LimitName = RateLimitStoreError['limit'];
type Incr = FastifyRateLimitStore['incr'];
// Not in the package's type declarations, but its own module (store/RedisStore.js), used as the plugin uses it.
const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  keyPrefix: string,
) => { incr: Incr; read: Incr };

export class SharedCounters {
  readonly client: Redis;
  readonly #store;
  #pausedUntil = 0;
  #pausedBy: Error | undefined;
  #down = false;
  #closing = false;

  constructor(
    url: string,
    keyPrefix: string,
    private readonly log: FastifyBaseLogger,
  ) {
    this.client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // Disconnected, a command fails at once instead of waiting in a queue for the connection.
      enableOfflineQueue: false,
      // Commands in flight when the connection drops fail at once; they are not sent again later.
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // Backs off up to a second, so a returning Redis is used again within a second.
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
      connectionName: 'plant-store',
    });
    // Without a listener ioredis prints every failed reconnection attempt to the console.
    this.client.on('error', (error: Error) => this.#warn(error));
    this.client.on('close', () => this.#warn(new Error('the connection to Redis closed')));
    this.client.on('ready', () => {
      this.#pausedUntil = 0;
      this.#answered();
    });
    this.#store = new RedisStore(false, false, this.client, keyPrefix);
  }

  /** Connects, waiting at most CONNECT_TIMEOUT_MS; a Redis that does not answer is not waited for (the limits fail open meanwhile). */
  async connect(): Promise<void> {
    await Promise.race([this.client.connect().catch(() => undefined), sleep(CONNECT_TIMEOUT_MS, undefined, { ref: false })]);
  }

  /** Not QUIT: with requests all answered there is nothing to wait for, and a dead Redis would make it wait. */
  close(): void {
    this.#closing = true;
    this.client.disconnect();
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
      this.#failed(limit, this.#pausedBy);
      return undefined;
    }
    try {
      const counted = await new Promise<Counted>((resolve, reject) =>
        call((error, result) => (result ? resolve(result) : reject(error ?? new Error('Redis answered nothing')))),
      );
      this.#answered();
      return counted;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.#pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
      this.#pausedBy = new Error(`not asked: Redis failed less than ${PAUSE_AFTER_FAILURE_MS} ms ago (${failure.message})`);
      this.#failed(limit, failure);
      return undefined;
    }
  }

  /** A call for `limit` failed, so the request it was for was let through: published for the metrics. */
  #failed(limit: LimitName, error: Error): void {
    if (rateLimitStoreErrors.hasSubscribers) rateLimitStoreErrors.publish({ limit, error } satisfies RateLimitStoreError);
    this.#warn(error);
  }

  #answered(): void {
    if (!this.#down) return;
    this.#down = false;
    this.log.info('Redis answers again: the rate limits are shared across instances again');
  }

  /** Once per outage, not once per request; not while the app closes the connection on purpose. */
  #warn(error: Error): void {
    if (this.#down || this.#closing) return;
    this.#down = true;
    // Not the error object itself: ioredis attaches the failed command and its arguments, AUTH's password among them.
    const { name, message, code } = error as Error & { code?: unknown };
    this.log.warn(
      { err: { type: name, message, code } },
      'Redis is unreachable: the rate limits fail open (requests are let through, failed authentications are counted per instance) until it answers again',
    );
  }
}
