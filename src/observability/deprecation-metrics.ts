// Answers of what openapi.yaml deprecates, counted per operation from their channel: who still calls it, before its sunset.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Counter, type Registry } from 'prom-client';
import { deprecatedRequests, type DeprecatedRequest } from '../channels.js';

/** Subscribes; returns what unsubscribes. `operations`: the operationIds with a deprecation, each counted from 0. */
export function countDeprecatedRequests(registry: Registry, operations: readonly string[]): () => void {
  const counter = new Counter({
    name: 'plant_store_deprecated_requests_total',
    help: 'Answers that announced a deprecation (Deprecation and Sunset headers), by operation (operationId of openapi.yaml): the operation is deprecated, or the request used a deprecated parameter.',
    labelNames: ['operation'],
    registers: [registry],
  });
  // A series that appears only with its first event breaks rate() and alerts.
  for (const operation of operations) counter.inc({ operation }, 0);
  const count = (message: unknown) => counter.inc({ operation: (message as DeprecatedRequest).operation });
  subscribe(deprecatedRequests.name, count);
  return () => unsubscribe(deprecatedRequests.name, count);
}
