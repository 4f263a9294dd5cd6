// Traces (OpenTelemetry): a span per request through @fastify/otel, spans of the store calls and commits under it,
// batched and sent over OTLP. Registered first, and only when tracing is on (app.ts imports it only then).
import { setTimeout as delay } from 'node:timers/promises';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { context, diag, DiagLogLevel, propagation, type DiagLogger, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION, ATTR_URL_PATH, ATTR_URL_SCHEME } from '@opentelemetry/semantic-conventions';
import type { TracesConfig } from '../../config.js';
import { traceStore } from './store-spans.js';

/**
 * Longest the close waits for the last spans to reach the collector: an unreachable one must not
 * hold a shutdown (server.ts gives the whole close 10 seconds); past it those spans are dropped.
 */
export const FLUSH_LIMIT_MS = 2000;

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
 * Context and propagation are global in the OpenTelemetry API: set once per process (a second registration is an
 * error). Only the W3C `traceparent`/`tracestate` headers are read; nothing is injected into responses.
 */
function registerGlobals(): void {
  if (globalsRegistered) return;
  globalsRegistered = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

/**
 * This app's tracer provider, not the global one: closing the app shuts it down, and another app in the process (tests)
 * has its own. OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_* and OTEL_TRACES_SAMPLER still apply.
 */
function createTracerProvider(config: TracesConfig): NodeTracerProvider {
  registerGlobals();
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'plant-store', [ATTR_SERVICE_VERSION]: packageVersion() }))
    .merge(detectResources({ detectors: [envDetector] }));
  const exporter = config.protocol === 'http/json' ? new JsonExporter({ url: config.url }) : new ProtobufExporter({ url: config.url });
  return new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
}

/** The request span, named and described as OpenTelemetry's HTTP conventions say, plus the request id. */
function describeRequest(span: Span, request: FastifyRequest): void {
  const route = request.routeOptions.url;
  span.updateName(route === undefined ? request.method : `${request.method} ${route}`);
  span.setAttributes({
    // @fastify/otel records the whole URL here; the query (a cursor) is not part of the path.
    [ATTR_URL_PATH]: request.url.split('?', 1)[0],
    [ATTR_URL_SCHEME]: request.protocol,
    'plant_store.request.id': request.id,
  });
}

/** The SDK's own complaints (an export that failed, a bad OTEL_* value) go to the app's log as warnings. */
function logDiagnostics(app: FastifyInstance): void {
  const warn = (message: string, ...args: unknown[]) => app.log.warn({ details: args.map(String) }, `traces: ${message}`);
  const logger: DiagLogger = { error: warn, warn, info: () => undefined, debug: () => undefined, verbose: () => undefined };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
}

export default fp(
  async function tracing(app: FastifyInstance, options: { traces: TracesConfig }) {
    logDiagnostics(app);
    const provider = createTracerProvider(options.traces);
    const instrumentation = new FastifyOtelInstrumentation({
      requestHook: describeRequest,
      // The handler's span is otherwise named after the chain of plugins around it.
      lifecycleHook: (span, { hookName, request }) => {
        if (hookName === 'handler') span.updateName(`handler ${request.method} ${request.routeOptions.url ?? ''}`);
      },
      // A span for the request and one for its route handler (which also puts the handler's store calls
      // in the request's context, whatever the body's arrival did to it); none per hook, which would
      // be a dozen spans a request telling little.
      instrumentHooks: false,
      // An exception event carries the error's message and stack: a client's bad JSON could put its
      // text there. The request span's status says the error (the message the client got).
      recordExceptions: false,
    });
    instrumentation.setTracerProvider(provider);
    await app.register(instrumentation.plugin());
    const stopTracingStore = traceStore(provider.getTracer('plant-store'));

    app.addHook('onClose', async () => {
      stopTracingStore();
      instrumentation.disable();
      const outcome = await Promise.race([
        provider.shutdown().then(
          () => 'flushed' as const,
          (error: unknown) => error,
        ),
        delay(FLUSH_LIMIT_MS, 'late' as const, { ref: false }),
      ]);
      if (outcome === 'late')
        app.log.warn({ limitMs: FLUSH_LIMIT_MS }, 'traces: the collector did not take the last spans in time; they are dropped');
      else if (outcome !== 'flushed') app.log.warn({ err: outcome }, 'traces: the last spans could not be sent');
    });
  },
  { name: 'tracing' },
);
