// The app's logger: pino's own through Fastify (JSON lines, a child logger per request with its reqId); tokens never written.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

/** Tokens must never reach the logs, not even from a query string, where the service ignores them. */
const redactTokens = (url: string) => url.replace(/pst_[A-Za-z0-9_-]*/g, 'pst_[redacted]');

/** Fastify's `logger` option for a level (`silent`: no logger at all) and, by default, stdout. */
export function loggerOptions(level: string, stream?: { write(line: string): void }): NonNullable<FastifyServerOptions['logger']> {
  if (level === 'silent') return false;
  return {
    level,
    ...(stream && { stream }),
    // The request line holds no headers: Authorization never reaches the log.
    serializers: { req: (request) => ({ method: request.method, url: redactTokens(request.url), remoteAddress: request.ip }) },
  };
}

/**
 * Resolves once every line logged so far is written: pino writes stdout asynchronously, and at process.exit
 * the write under way was lost (7 of 250 request lines in CI, where the reader was slow). No logger: at once.
 */
export function logWritten(log: FastifyBaseLogger): Promise<void> {
  const pino = log as FastifyBaseLogger & { flush?: (done: () => void) => void };
  return pino.flush === undefined ? Promise.resolve() : new Promise((resolve) => pino.flush!(() => resolve()));
}
