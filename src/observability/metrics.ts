// One app's metrics besides its requests': the process's default metrics with event-loop lag, and the counters and
// histograms fed by the service's diagnostics channels.
import { subscribe, unsubscribe, type Channel } from 'node:diagnostics_channel';
import { collectDefaultMetrics, Counter, type Registry } from 'prom-client';
import type { Store } from '../store/plant-store.js';
import { authFailures, deprecatedRequests, rateLimited, rateLimitStoreErrors } from '../channels.js';
import { measureStore } from './store-metrics.js';

const LIMITS = ['token', 'auth-failures'];

/**
 * A counter of a channel's messages by `label`, the message's field of that name, each of `values` at 0 from the
 * start (a series that appears only with its first event breaks rate() and alerts); returns what unsubscribes.
 */
function countMessages(registry: Registry, channel: Channel, name: string, help: string, label: string, values: readonly string[]) {
  const counter = new Counter({ name, help, labelNames: [label], registers: [registry] });
  for (const value of values) counter.inc({ [label]: value }, 0);
  const count = (message: unknown) => counter.inc({ [label]: (message as Record<string, string>)[label] });
  subscribe(channel.name, count);
  return () => void unsubscribe(channel.name, count);
}

/**
 * Registers the process's metrics, the store's and the channels' counters in `registry` (one per app: tests build many
 * in one process); returns what unsubscribes, so a closed app counts nothing and costs nothing.
 */
export function measureService(registry: Registry, store: Store, deprecatedOperations: readonly string[]): () => void {
  // CPU, memory, heap, handles, file descriptors, GC, and the event loop's delay
  // (perf_hooks.monitorEventLoopDelay, sampled every 10 ms: p50/p90/p99 since the last scrape).
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  const stops = [
    measureStore(registry, store),
    countMessages(
      registry,
      authFailures,
      'plant_store_auth_failures_total',
      'Requests refused by authentication: reason "missing" (no bearer token) or "invalid" (malformed, unknown, revoked or expired).',
      'reason',
      ['missing', 'invalid'],
    ),
    countMessages(
      registry,
      rateLimited,
      'plant_store_rate_limited_total',
      'Requests answered 429 by a rate limit: "token" (requests per token) or "auth-failures" (failed authentications per address).',
      'limit',
      LIMITS,
    ),
    countMessages(
      registry,
      rateLimitStoreErrors,
      'plant_store_rate_limit_store_errors_total',
      'Rate-limit checks whose shared store (Redis) failed; the request was let through (the limit fails open).',
      'limit',
      LIMITS,
    ),
    countMessages(
      registry,
      deprecatedRequests,
      'plant_store_deprecated_requests_total',
      'Answers that announced a deprecation (Deprecation and Sunset headers), by operation (operationId of openapi.yaml): the operation is deprecated, or the request used a deprecated parameter.',
      'operation',
      deprecatedOperations,
    ),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
