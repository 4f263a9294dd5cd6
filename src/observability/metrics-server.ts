// The metrics port: GET /metrics answers the registry's Prometheus text; everything else is 404.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

const PATH = '/metrics';

export function metricsServer(registry: Registry, onError: (error: unknown) => void): Server {
  return createServer((request, response) => {
    const path = request.url?.split('?', 1)[0];
    if (path !== PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`Not found: this port serves GET ${PATH} only.\n`);
      return;
    }
    registry.metrics().then(
      (text) => void response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        onError(error);
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('The metrics could not be collected; see the log.\n');
      },
    );
  });
}

/** Listens on `host`:`port` (0: any free port); resolves with the URL of /metrics. */
export async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${hostPart}:${address.port}${PATH}`;
}

/** Stops listening and ends every connection, a scraper's keep-alive one too: the process's shutdown never waits on it. */
export async function close(server: Server): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}
