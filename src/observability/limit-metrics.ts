// Authentication failures, rate-limit rejections and rate-limit store errors, counted from their channels.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Counter, type Registry } from 'prom-client';
import {
  authFailures,
  rateLimited,
  rateLimitStoreErrors,
  type AuthFailure,
  type RateLimited,
  type RateLimitStoreError,
} from '../channels.js';

/** Every label value a counter can take, at 0 from the start: a series that appears only with its first event breaks rate() and alerts. */
function zeroed<T extends string>(counter: Counter<T>, label: T, values: readonly string[]): Counter<T> {
  for (const value of values) counter.inc({ [label]: value } as Partial<Record<T, string>>, 0);
  return counter;
}

/** Subscribes; returns what unsubscribes. */
export function countLimits(registry: Registry): () => void {
  const registers = [registry];
  const limits = ['token', 'auth-failures'] as const;
  const failures = zeroed(
    new Counter({
      name: 'plant_store_auth_failures_total',
      help: 'Requests refused by authentication: reason "missing" (no bearer token) or "invalid" (malformed, unknown, revoked or expired).',
      labelNames: ['reason'],
      registers,
    }),
    'reason',
    ['missing', 'invalid'],
  );
  const rejected = zeroed(
    new Counter({
      name: 'plant_store_rate_limited_total',
      help: 'Requests answered 429 by a rate limit: "token" (requests per token) or "auth-failures" (failed authentications per address).',
      labelNames: ['limit'],
      registers,
    }),
    'limit',
    limits,
  );
  const storeErrors = zeroed(
    new Counter({
      name: 'plant_store_rate_limit_store_errors_total',
      help: 'Rate-limit checks whose shared store (Redis) failed; the request was let through (the limit fails open).',
      labelNames: ['limit'],
      registers,
    }),
    'limit',
    limits,
  );

  const handlers: Array<[string, (message: unknown) => void]> = [
    [authFailures.name as string, (message) => failures.inc({ reason: (message as AuthFailure).reason })],
    [rateLimited.name as string, (message) => rejected.inc({ limit: (message as RateLimited).limit })],
    [rateLimitStoreErrors.name as string, (message) => storeErrors.inc({ limit: (message as RateLimitStoreError).limit })],
  ];
  for (const [name, handler] of handlers) subscribe(name, handler);
  return () => {
    for (const [name, handler] of handlers) unsubscribe(name, handler);
  };
}
