// buildApp(config): registers plugins and routes, nothing else.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import acceptSockets from './plugins/accept-sockets.js';
import auth from './plugins/auth.js';
import corsPolicy from './plugins/cors.js';
import docs from './plugins/docs.js';
import gracefulClose from './plugins/graceful-close.js';
import errorHandler from './plugins/error-handler.js';
import { headLikeGet } from './plugins/head-like-get.js';
import inOrder from './plugins/in-order.js';
import jsonBody, { BODY_LIMIT } from './plugins/json-body.js';
import loadShedding from './plugins/load-shedding.js';
import storePlugin from './plugins/store.js';
import tokenRateLimit from './plugins/rate-limit.js';
import requestId, { requestIdOf } from './plugins/request-id.js';
import routeTable from './plugins/route-table.js';
import nodeErrors, { clientErrorHandler, frameworkErrors } from './plugins/node-errors.js';
import securityHeaders from './plugins/security-headers.js';
import sharedLimits from './plugins/shared-limits.js';
import operationRoutes, { type Handlers } from './contract/operation-routes.js';
import { contractDocumentHandlers } from './routes/contract-documents.js';
import { servedContract } from './contract/served-contract.js';
import { healthHandlers } from './routes/health.js';
import { plantHandlers } from './routes/plants.js';
import { componentSchemas } from '../generated/schemas.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/plant-store.js';
import { ajvOptions } from './validation/ajv-options.js';
import { loggerOptions } from './logging/logger.js';

export interface BuildOptions {
  /** A store opened elsewhere; by default the one the configuration names. */
  store?: Store;
  /** Where JSON log lines go; stdout by default. */
  logStream?: { write(line: string): void };
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config.logLevel, options.logStream),
    bodyLimit: BODY_LIMIT,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // Node enforces the timeouts only when it checks its connections; check every second.
    // requireHostHeader off: Node's check answers with an empty body; plugins/node-errors.ts makes it.
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000, requireHostHeader: false },
    // Not everywhere: HEAD is added in the open scope only (below); the plant operations do not declare it.
    exposeHeadRoutes: false,
    // During shutdown, requests already on an open connection are served, not refused with 503.
    return503OnClosing: false,
    trustProxy: config.trustProxy,
    clientErrorHandler,
    frameworkErrors,
    ajv: ajvOptions,
    requestIdHeader: false,
    genReqId: requestIdOf,
  });

  // First, before any hook or route, so @fastify/otel sees them all. Imported only when on: with tracing
  // off the OpenTelemetry SDK is never loaded and nothing listens to the store (no cost per request).
  if (config.traces) await app.register((await import('./observability/tracing/plugin.js')).default, { traces: config.traces });
  for (const schema of componentSchemas) app.addSchema(schema);
  await app.register(routeTable);
  await app.register(errorHandler);
  await app.register(inOrder); // first of the request hooks: what runs before it could read state
  await app.register(requestId);
  await app.register(loadShedding, config.shed);
  await app.register(securityHeaders);
  await app.register(nodeErrors);
  await app.register(gracefulClose);
  await app.register(acceptSockets); // after gracefulClose: its close runs after that one's
  await app.register(corsPolicy, { origins: config.corsOrigins });
  await app.register(jsonBody);
  await app.register(storePlugin, { store: options.store ?? (await openStore(config, app.log)) });
  await app.register(sharedLimits, { redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix });
  // Imported only when on, like tracing: prom-client (and the OpenTelemetry API it loads) stays out of a process without metrics.
  if (config.metricsPort !== undefined) {
    await app.register((await import('./plugins/metrics.js')).default, {
      port: config.metricsPort,
      host: config.metricsHost,
      headersTimeoutMs: config.headersTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
      keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    });
  }

  const served = servedContract(config.oidc);
  // Every operation's handler, typed from openapi.yaml: one missing here fails to compile, naming it.
  const handlers: Handlers = { ...healthHandlers, ...contractDocumentHandlers(served), ...plantHandlers };
  // Each operation goes to the open scope or the protected one as openapi.yaml's `security` says.
  await app.register(operationRoutes, {
    handlers,
    // Open endpoints answer HEAD like GET (load balancers, link checkers); Swagger UI is one of them.
    open: async (scope) => {
      scope.addHook('onRoute', headLikeGet(scope.routeTable));
      await scope.register(docs, { document: served.docs, oidc: config.oidc });
    },
    protect: async (scope) => {
      await scope.register(auth, { authFailuresPerMinute: config.authFailuresPerMinute, oidc: config.oidc });
      await scope.register(tokenRateLimit, { perMinute: config.rateLimitPerMinute });
    },
  });
  return app;
}
