// Request loggers that come into being only when a request writes a line: pino's child() costs
// several microseconds on every request, and at the usual levels almost no request logs.
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** pino's level numbers. */
const SEVERITY: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY };

class LazyChildLogger {
  #real: FastifyBaseLogger | undefined;
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildOptions;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #child(): FastifyBaseLogger {
    return (this.#real ??= this.#parent.child(this.#bindings, this.#options));
  }

  #write(level: Level, args: unknown[]): void {
    if (this.#real === undefined && SEVERITY[level]! < (SEVERITY[this.level] ?? 0)) return;
    (this.#child()[level] as (...args: unknown[]) => void)(...args);
  }

  get level(): string {
    return this.#real?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#child().level = level;
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#child().child(bindings, options);
  }

  fatal(...args: unknown[]) {
    this.#write('fatal', args);
  }
  error(...args: unknown[]) {
    this.#write('error', args);
  }
  warn(...args: unknown[]) {
    this.#write('warn', args);
  }
  info(...args: unknown[]) {
    this.#write('info', args);
  }
  debug(...args: unknown[]) {
    this.#write('debug', args);
  }
  trace(...args: unknown[]) {
    this.#write('trace', args);
  }
  silent() {}
}

/** A Fastify childLoggerFactory: the same lines as pino's child(), made only when written. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
