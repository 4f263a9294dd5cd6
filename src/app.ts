// buildApp(config): registers plugins and routes, nothing else.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import auth from './plugins/auth.js';
import corsPolicy from './plugins/cors.js';
import docs from './plugins/docs.js';
import answers, { clientErrorHandler, frameworkErrors } from './http/answers.js';
import connection from './http/connection.js';
import headers, { requestIdOf } from './http/headers.js';
import jsonBody, { BODY_LIMIT } from './plugins/json-body.js';
import loadShedding from './plugins/load-shedding.js';
import storePlugin from './plugins/store.js';
import tokenRateLimit from './plugins/rate-limit.js';
import sharedLimits from './plugins/shared-limits.js';
import operationRoutes, { type Handlers } from './contract/operation-routes.js';
import { contractDocumentHandlers, servedContract } from './contract/served-contract.js';
import { deprecations } from '@plant-store/conformance/deprecation';
import { healthHandlers } from './routes/health.js';
import { plantHandlers } from './routes/plants.js';
import { componentSchemas } from '../generated/schemas.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/plant-store.js';
import { ajvOptions } from './validation/ajv-options.js';
import { loggerOptions, requestLogger } from './logging/logger.js';

export interface BuildOptions {
  /** A store opened elsewhere; by default the one the configuration names. */
  store?: Store;
  /** Where JSON log lines go; stdout by default. */
  logStream?: { write(line: string): void };
  /**
   * openapi.yaml's text to serve instead of the project's, for tests: a copy that differs only in what
   * the generated routes do not depend on (deprecations, descriptions); the routes still come from generated/.
   */
  contract?: string;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config.logLevel, options.logStream),
    bodyLimit: BODY_LIMIT,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // Node enforces the timeouts only when it checks its connections; check every second.
    // requireHostHeader off: Node's check answers with an empty body; http/headers.ts refuses in the Error shape.
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000, requireHostHeader: false },
    // During shutdown, requests already on an open connection are served, not refused with 503.
    return503OnClosing: false,
    trustProxy: config.trustProxy,
    clientErrorHandler,
    frameworkErrors,
    ajv: ajvOptions,
    requestIdHeader: false,
    genReqId: requestIdOf,
    childLoggerFactory: requestLogger,
  });

  // First, before any hook or route, so @fastify/otel sees them all. Imported only when on: with tracing
  // off the OpenTelemetry SDK is never loaded and nothing listens to the store (no cost per request).
  if (config.traces) await app.register((await import('./observability/tracing/plugin.js')).default, { traces: config.traces });
  for (const schema of componentSchemas) app.addSchema(schema);
  // The edge (src/http/), first: its request hooks run before any other (the connection's order, then the headers).
  await app.register(connection);
  await app.register(headers);
  await app.register(answers);
  await app.register(loadShedding, config.shed);
  await app.register(corsPolicy, { origins: config.corsOrigins });
  await app.register(jsonBody);
  await app.register(storePlugin, { store: options.store ?? (await openStore(config, app.log)) });
  await app.register(sharedLimits, { redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix });
  const served = servedContract(config.oidc, options.contract);
  // Imported only when on, like tracing: prom-client (and the OpenTelemetry API it loads) stays out of a process without metrics.
  if (config.metricsPort !== undefined) {
    await app.register((await import('./plugins/metrics.js')).default, {
      port: config.metricsPort,
      host: config.metricsHost,
      deprecatedOperations: deprecations(served.docs).flatMap(({ operationId }) => operationId ?? []),
      headersTimeoutMs: config.headersTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
      keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    });
  }

  // Every operation's handler, typed from openapi.yaml: one missing here fails to compile, naming it.
  const handlers: Handlers = { ...healthHandlers, ...contractDocumentHandlers(served), ...plantHandlers };
  await app.register(operationRoutes, {
    handlers,
    document: served.docs,
    open: async (scope) => {
      await scope.register(docs, { document: served.docs, oidc: config.oidc });
    },
    protect: async (scope) => {
      await scope.register(auth, { authFailuresPerMinute: config.authFailuresPerMinute, oidc: config.oidc });
      await scope.register(tokenRateLimit, { perMinute: config.rateLimitPerMinute });
    },
  });
  return app;
}
