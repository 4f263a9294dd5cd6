// The app's logger: pino's own through Fastify (JSON lines, a child logger per request with its reqId); tokens never written.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

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
 * Fastify's `logger` option for a level (`silent`: no logger at all) and, by default, process.stdout: a Node stream,
 * whose unwritten lines the shutdown waits for (server.ts); pino's own destination loses a line a stalled reader has not taken.
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

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Line = [obj: unknown, msg?: string, ...args: unknown[]];
type Pino = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger (Fastify's childLoggerFactory) whose pino child is made at its first line written: a pino
 * child costs about 1 us (its bindings turned into JSON text), 4% of a first page's CPU, and at `warn` a
 * request served writes no line. Each line is pino's own, with the same fields; at `info`, every request's.
 */
class RequestLogger implements FastifyBaseLogger {
  #made: Pino | undefined;
  constructor(
    private readonly parent: Pino,
    private readonly bindings: Bindings,
  ) {}
  get #child(): Pino {
    return (this.#made ??= this.parent.child(this.bindings) as Pino);
  }
  get level() {
    return this.#child.level;
  }
  set level(level: string) {
    this.#child.level = level;
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#child.child(bindings, options);
  }
  #write(level: Level, args: Line): void {
    if ((this.#made ?? this.parent).isLevelEnabled(level)) this.#child[level](...args);
  }
  fatal(...args: Line): void {
    this.#write('fatal', args);
  }
  error(...args: Line): void {
    this.#write('error', args);
  }
  warn(...args: Line): void {
    this.#write('warn', args);
  }
  info(...args: Line): void {
    this.#write('info', args);
  }
  debug(...args: Line): void {
    this.#write('debug', args);
  }
  trace(...args: Line): void {
    this.#write('trace', args);
  }
  silent(): void {}
}

/** Fastify's childLoggerFactory: no logger (`silent`), or a route's own level or serializers (none here), get their child at once. */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (!('isLevelEnabled' in logger) || Object.keys(options).length > 0) return logger.child(bindings, options);
  return new RequestLogger(logger as Pino, bindings);
}
