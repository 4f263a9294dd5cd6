// The OpenTelemetry SDK for traces: spans of this process, batched and sent to the OTLP endpoint.
// Loaded only when tracing is on (app.ts imports the tracing plugin dynamically).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { TracesConfig } from '../../config.js';

/** The plant-store package's version: its package.json above this module, from src/ (tsx) or dist/src/ (built). */
function packageVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dirname(dir) !== dir; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version: string };
    if (name === 'plant-store') return version;
  }
  throw new Error('the package.json of plant-store was not found above this module');
}

let globalsRegistered = false;

/**
 * Context and propagation are global in the OpenTelemetry API, so they are set once per process (the
 * API would complain of a second registration). Only the W3C `traceparent`/`tracestate` headers are
 * read; nothing is injected into responses.
 */
function registerGlobals(): void {
  if (globalsRegistered) return;
  globalsRegistered = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

/**
 * A tracer provider of this app, not the global one: closing the app shuts it down, and another app
 * in the same process (tests) has its own. Service name `plant-store` and the package's version,
 * unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise; the exporter reads
 * OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT and _COMPRESSION, the sampler OTEL_TRACES_SAMPLER.
 */
export function createTracerProvider(config: TracesConfig): NodeTracerProvider {
  registerGlobals();
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'plant-store', [ATTR_SERVICE_VERSION]: packageVersion() }))
    .merge(detectResources({ detectors: [envDetector] }));
  const exporter = config.protocol === 'http/json' ? new JsonExporter({ url: config.url }) : new ProtobufExporter({ url: config.url });
  return new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
}
