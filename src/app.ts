// buildApp(config): registers plugins and routes, nothing else.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import auth from './plugins/auth.js';
import corsPolicy from './plugins/cors.js';
import docs from './plugins/docs.js';
import gracefulClose from './plugins/graceful-close.js';
import { headLikeGet } from './plugins/head-like-get.js';
import inOrder from './plugins/in-order.js';
import errors from './plugins/errors.js';
import jsonBody, { BODY_LIMIT } from './plugins/json-body.js';
import storePlugin from './plugins/store.js';
import tokenRateLimit from './plugins/rate-limit.js';
import routeTable from './plugins/route-table.js';
import nodeErrors, { clientErrorHandler, frameworkErrors } from './plugins/node-errors.js';
import securityHeaders, { apiHeaders } from './plugins/security-headers.js';
import healthRoutes from './routes/health.js';
import plantRoutes from './routes/plants.js';
import { componentSchemas } from '../generated/schemas.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/plant-store.js';
import { ajvOptions } from './validation/ajv-options.js';
import { lazyChildLogger } from './logging/lazy-child-logger.js';
import { RequestLogController } from './logging/request-log-controller.js';

/** Tokens must never reach the logs, not even from a query string. */
const redactTokens = (url: string) => url.replace(/pst_[A-Za-z0-9_-]*/g, 'pst_[redacted]');

export interface BuildOptions {
  /** A store opened elsewhere; by default the one the configuration names. */
  store?: Store;
  /** Where JSON log lines go; stdout by default. */
  logStream?: { write(line: string): void };
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  // For the answers Node and the router give before any hook runs (plugins/node-errors.ts).
  const securityHeadersForErrors = await apiHeaders();
  const app = Fastify({
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            ...(options.logStream && { stream: options.logStream }),
            serializers: { req: (request) => ({ method: request.method, url: redactTokens(request.url), remoteAddress: request.ip }) },
          },
    childLoggerFactory: lazyChildLogger,
    logController: new RequestLogController(config.logLevel),
    bodyLimit: BODY_LIMIT,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // Node enforces the timeouts only when it checks its connections; check every second.
    // requireHostHeader off: Node's check answers with an empty body; plugins/node-errors.ts makes it.
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000, requireHostHeader: false },
    // Not everywhere: HEAD is added in the open scope only (openRoutes below); the plant operations do not declare it.
    exposeHeadRoutes: false,
    // During shutdown, requests already on an open connection are served, not refused with 503.
    return503OnClosing: false,
    trustProxy: config.trustProxy,
    clientErrorHandler: clientErrorHandler(securityHeadersForErrors),
    frameworkErrors: frameworkErrors(securityHeadersForErrors),
    ajv: ajvOptions,
  });

  for (const schema of componentSchemas) app.addSchema(schema);
  await app.register(routeTable);
  await app.register(errors);
  await app.register(inOrder); // first of the request hooks: what runs before it could read state
  await app.register(securityHeaders);
  await app.register(nodeErrors, { securityHeaders: securityHeadersForErrors });
  await app.register(gracefulClose);
  await app.register(corsPolicy, { origins: config.corsOrigins });
  await app.register(jsonBody);
  await app.register(storePlugin, { store: options.store ?? (await openStore(config)) });

  await app.register(async function openRoutes(scope) {
    scope.addHook('onRoute', headLikeGet(scope.routeTable));
    await scope.register(healthRoutes);
    await scope.register(docs);
  });
  await app.register(async function protectedRoutes(scope) {
    await scope.register(auth, { authFailuresPerMinute: config.authFailuresPerMinute });
    await scope.register(tokenRateLimit, { perMinute: config.rateLimitPerMinute });
    await scope.register(plantRoutes);
  });
  return app;
}
