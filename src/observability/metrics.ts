// One app's metrics: its own registry (tests build many apps in one process), the process's default
// metrics with event-loop lag, and the counters and histograms fed by the service's diagnostics channels.
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Store } from '../store/plant-store.js';
import { countDeprecatedRequests } from './deprecation-metrics.js';
import { countLimits } from './limit-metrics.js';
import { RequestMetrics } from './request-metrics.js';
import { measureStore } from './store-metrics.js';

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests: RequestMetrics;
  readonly #stops: Array<() => void>;

  /** `deprecatedOperations`: the operationIds openapi.yaml deprecates (or some of whose parameters). */
  constructor(store: Store, deprecatedOperations: readonly string[] = []) {
    // CPU, memory, heap, handles, file descriptors, GC, and the event loop's delay
    // (perf_hooks.monitorEventLoopDelay, sampled every 10 ms: p50/p90/p99 since the last scrape).
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 });
    this.requests = new RequestMetrics(this.registry);
    this.#stops = [
      measureStore(this.registry, store),
      countLimits(this.registry),
      countDeprecatedRequests(this.registry, deprecatedOperations),
    ];
  }

  /** Unsubscribes from the channels, so a closed app counts nothing and costs nothing. */
  stop(): void {
    for (const stop of this.#stops.splice(0)) stop();
  }
}
