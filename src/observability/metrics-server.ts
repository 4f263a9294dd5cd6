// The metrics port, a Fastify server of its own: GET /metrics answers the registry's Prometheus text, else 404. It
// renders at most once a second however many scrapers ask, so a crowd of them costs the API's event loop one render a second.
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { Registry } from 'prom-client';

const PATH = '/metrics';
/** A rendered text is served again for this long. */
export const RENDER_EVERY_MS = 1000;
/** Scrapers served at once, so a crowd of them cannot slow the API (docs/reliability.md); Node drops a connection past them. */
export const MAX_SCRAPERS = 16;

export interface MetricsServerOptions {
  /** The API's own timeouts (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** How long a rendered text is served again (RENDER_EVERY_MS; tests lengthen it). */
  renderEveryMs?: number;
}

export function metricsServer(registry: Registry, onError: (error: unknown) => void, options: MetricsServerOptions): FastifyInstance {
  const renderEveryMs = options.renderEveryMs ?? RENDER_EVERY_MS;
  // Kept as bytes: a scrape in the second after a render costs only the write of them.
  let rendered: { text: Promise<Buffer>; at: number } | undefined;
  const render = () => {
    const now = performance.now();
    if (rendered === undefined || now - rendered.at >= renderEveryMs) {
      rendered = { text: registry.metrics().then((text) => Buffer.from(text)), at: now };
      // A failed render is not served again: the next scrape tries anew.
      const failed = rendered;
      failed.text.catch(() => {
        if (rendered === failed) rendered = undefined;
      });
    }
    return rendered.text;
  };
  const notFound = (reply: FastifyReply) =>
    reply.code(404).type('text/plain; charset=utf-8').send(`Not found: this port serves GET ${PATH} only.\n`);
  const server = Fastify({
    requestTimeout: options.requestTimeoutMs,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    // Node enforces the timeouts only when it checks its connections; check every second.
    http: { headersTimeout: options.headersTimeoutMs, connectionsCheckingInterval: 1000 },
    // Its close ends every connection, a scraper's keep-alive one too: the process's shutdown never waits on it.
    forceCloseConnections: true,
    // Whatever is not GET /metrics is a 404, a URL Fastify cannot decode or a body it cannot parse too.
    frameworkErrors: (_error, _request, reply) => void notFound(reply),
  });
  server.server.maxConnections = MAX_SCRAPERS;
  server.get(PATH, (_request, reply) => {
    void render().then(
      (text) => reply.type(registry.contentType).send(text),
      (error: unknown) => {
        onError(error);
        reply.code(500).type('text/plain; charset=utf-8').send('The metrics could not be collected; see the log.\n');
      },
    );
  });
  server.setNotFoundHandler((_request, reply) => notFound(reply));
  server.setErrorHandler((_error, _request, reply) => notFound(reply));
  return server;
}

/** Listens on `host`:`port` (0: any free port); resolves with the URL of /metrics. */
export async function listen(server: FastifyInstance, port: number, host: string): Promise<string> {
  await server.listen({ port, host });
  const { address, family, port: bound } = server.server.address() as AddressInfo;
  return `http://${family === 'IPv6' ? `[${address}]` : address}:${bound}${PATH}`;
}
