// Prometheus metrics, registered only when METRICS_PORT is set (app.ts imports this file only then):
// one observation per answered request, the channel subscriptions of src/observability, and a server
// of its own for /metrics (never the API's port).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { OperationId } from '../../generated/schemas.js';
import { Registry } from 'prom-client';
import { measureService } from '../observability/metrics.js';
import { listen, metricsServer, type MetricsServerOptions } from '../observability/metrics-server.js';
import { measureRequests } from '../observability/request-metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Present only when METRICS_PORT is set; `listen` opens its port (server.ts, just before the API's) and resolves with /metrics's URL. */
    metrics?: { readonly registry: Registry; listen(): Promise<string> };
  }
  interface FastifyContextConfig {
    /** The operation of openapi.yaml a route serves (src/contract/operation-routes.ts). */
    operationId?: OperationId;
  }
}

export default fp(
  async function metrics(
    app: FastifyInstance,
    /** `deprecatedOperations`: the operationIds openapi.yaml deprecates (or some of whose parameters). */
    options: { port: number; host: string; deprecatedOperations: readonly string[] } & MetricsServerOptions,
  ) {
    const registry = new Registry();
    const requests = measureRequests(registry);
    const stop = measureService(registry, app.store, options.deprecatedOperations);
    const server = metricsServer(registry, (error) => app.log.error({ err: error }, 'collecting the metrics failed'), options);
    app.decorate('metrics', { registry, listen: () => listen(server, options.port, options.host) });

    // elapsedTime is Fastify's own clock (taken at routing and at the response's end anyway).
    app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
      const route = request.routeOptions;
      // Contract operations by operationId, other routes (Swagger UI's files, CORS preflight) by their
      // pattern, and everything unmatched under one value: no label ever holds a raw URL.
      const operation = route.config.operationId ?? route.url ?? 'unmatched';
      requests.observe({ operation, method: request.method, status: reply.statusCode }, reply.elapsedTime / 1000);
    });
    // After the API has stopped taking requests, so the last scrapes still see the shutdown.
    app.addHook('onClose', async () => {
      stop();
      await server.close();
    });
  },
  { name: 'metrics', dependencies: ['store'] },
);
