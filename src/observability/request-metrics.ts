// Requests counted and timed per operation, method and status: the one observation on the hot path.
import type { Registry } from 'prom-client';
import { HotHistogram } from './hot-histogram.js';

/** Seconds: a cached page answers in well under a millisecond, a write waits for its sync, a stuck one for seconds. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The `operation` of a request that matched no route (404, 405): one value, whatever the URL was. */
export const UNMATCHED = 'unmatched';

export class RequestMetrics {
  readonly #duration: HotHistogram<'operation' | 'method' | 'status'>;

  constructor(registry: Registry) {
    this.#duration = new HotHistogram({
      name: 'plant_store_http_request_duration_seconds',
      help: 'Time from routing a request to the last byte of its answer handed to the OS, by operation (operationId of openapi.yaml, else the route, else "unmatched"), method and status.',
      labelNames: ['operation', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registry,
      countName: 'plant_store_http_requests_total',
      countHelp: 'Requests answered, by operation (operationId of openapi.yaml, else the route, else "unmatched"), method and status.',
    });
  }

  observe(operation: string, method: string, status: number, seconds: number): void {
    this.#duration.observe(this.#duration.series(operation, method, String(status)), seconds);
  }
}
