// The app's logger: pino's own through Fastify (JSON lines, a child logger per request with its reqId); tokens never written.
import type { FastifyServerOptions } from 'fastify';

/** The API's query parameters: any other is ignored by the service, so its text is of no use in a log. */
const QUERY_KEPT = new Set(['limit', 'cursor']);

/**
 * Tokens must never reach the logs, not even from a query string, where the service ignores them: a
 * query keeps only `limit` and `cursor` (any other pair, a token in any encoding or an identity
 * provider's JWT in `access_token`, is `[redacted]`), and `pst_`, plain or percent-encoded, is cut anywhere.
 */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  const query = at === -1 ? [] : url.slice(at + 1).split('&');
  const kept = query.map((pair) => (QUERY_KEPT.has(pair.slice(0, pair.indexOf('='))) ? pair : '[redacted]'));
  return (at === -1 ? url : `${url.slice(0, at)}?${kept.join('&')}`).replace(/pst(_|%5f)[A-Za-z0-9_%-]*/gi, 'pst_[redacted]');
}

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
    serializers: { req: (request) => ({ method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }) },
  };
}
