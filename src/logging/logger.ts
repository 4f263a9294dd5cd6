// The app's logger: pino's own through Fastify (JSON lines, a child logger per request with its reqId); tokens never written.
import type { FastifyServerOptions } from 'fastify';

/** Tokens must never reach the logs, not even from a query string, where the service ignores them. */
const redactTokens = (url: string) => url.replace(/pst_[A-Za-z0-9_-]*/g, 'pst_[redacted]');

/**
 * Fastify's `logger` option for a level (`silent`: no logger at all) and, by default, process.stdout: a Node
 * stream, whose unwritten lines the shutdown waits for (server.ts). pino's own default destination gives no
 * way to: a line it was still writing to a stalled reader when the process exited was lost (CI lost 7 of 250).
 */
export function loggerOptions(level: string, stream?: { write(line: string): void }): NonNullable<FastifyServerOptions['logger']> {
  if (level === 'silent') return false;
  return {
    level,
    stream: stream ?? process.stdout,
    // The request line holds no headers: Authorization never reaches the log.
    serializers: { req: (request) => ({ method: request.method, url: redactTokens(request.url), remoteAddress: request.ip }) },
  };
}
