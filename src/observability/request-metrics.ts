// Requests counted and timed per operation, method and status: the one observation on the hot path.
import { Counter, Histogram, type Registry } from 'prom-client';

/** Seconds: a cached page answers in well under a millisecond, a write waits for its fsync, a stuck one for seconds. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The `operation` of a request that matched no route (404, 405): one value, whatever the URL was. */
export const UNMATCHED = 'unmatched';

type Labels = 'operation' | 'method' | 'status';

interface Children {
  requests: Counter.Internal;
  duration: Histogram.Internal<Labels>;
}

export class RequestMetrics {
  readonly #requests: Counter<Labels>;
  readonly #duration: Histogram<Labels>;
  /** The labelled children by "operation method status": a Map lookup instead of prom-client hashing a labels object per request. */
  readonly #children = new Map<string, Children>();

  constructor(registry: Registry) {
    const labelNames = ['operation', 'method', 'status'] as const;
    this.#requests = new Counter({ name: 'plant_store_http_requests_total', help: 'Requests answered, by operation (operationId of openapi.yaml, else the route, else "unmatched"), method and status.', labelNames, registers: [registry] });
    this.#duration = new Histogram({ name: 'plant_store_http_request_duration_seconds', help: 'Time from routing a request to the last byte of its answer handed to the OS, by operation, method and status.', labelNames, buckets: LATENCY_BUCKETS, registers: [registry] });
  }

  observe(operation: string, method: string, status: number, seconds: number): void {
    const key = `${operation} ${method} ${status}`;
    let children = this.#children.get(key);
    if (children === undefined) {
      const status_ = String(status);
      children = { requests: this.#requests.labels(operation, method, status_), duration: this.#duration.labels(operation, method, status_) };
      this.#children.set(key, children);
    }
    children.requests.inc();
    children.duration.observe(seconds);
  }
}
