// What the service says when the shared rate-limit store (Redis) fails: a warning once per outage
// (not one per request), a line when it answers again, and a publication per failed call (metrics).
import type { FastifyBaseLogger } from 'fastify';
import { rateLimitStoreErrors, type RateLimitStoreError } from '../channels.js';

export type LimitName = RateLimitStoreError['limit'];

export class StoreOutage {
  #down = false;
  #closing = false;

  constructor(private readonly log: FastifyBaseLogger) {}

  /** A call for `limit` failed, so the request it was for was let through. */
  callFailed(limit: LimitName, error: Error): void {
    if (rateLimitStoreErrors.hasSubscribers) rateLimitStoreErrors.publish({ limit, error } satisfies RateLimitStoreError);
    this.#warn(error);
  }

  /** The connection failed or closed, whether or not a request was waiting on it. */
  connectionLost(error: Error): void {
    this.#warn(error);
  }

  /** A call succeeded, or the connection is ready again. */
  answered(): void {
    if (!this.#down) return;
    this.#down = false;
    this.log.info('Redis answers again: the rate limits are shared across instances again');
  }

  /** The app is closing: the connection ends on purpose, not an outage. */
  closing(): void {
    this.#closing = true;
  }

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
