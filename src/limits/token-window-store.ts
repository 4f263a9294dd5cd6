// @fastify/rate-limit's store for the per-token limit when it is shared: the same fixed window as
// the plugin's own Redis store, counted in RedisWindows so a failure is reported before it is skipped.
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { RedisWindows } from './redis-windows.js';

type Callback = Parameters<FastifyRateLimitStore['incr']>[1];

export function tokenWindowStore(windows: RedisWindows): FastifyRateLimitStoreCtor {
  return class TokenWindowStore implements FastifyRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number): void {
      void windows.hit('token', key, timeWindow).then((window) => {
        // An error with skipOnError: the plugin lets the request through (the failure is already reported).
        if (window === undefined) callback(new Error('the shared rate-limit store did not answer'));
        else callback(null, { current: window.count, ttl: window.ttlMs });
      });
    }

    // Per-route limits would get a store of their own; the service has one limit for all its routes.
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}
