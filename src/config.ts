// Environment -> typed Config; a bad value stops start-up with a message naming the variable.
import { ConfigError } from './config-error.js';
import { oidcConfig, type OidcConfig } from './auth/oidc/oidc-config.js';
import { parseDecimalInteger } from './validation/integers.js';

export type { OidcConfig };

export interface Config {
  port: number;
  host: string;
  /** Port of the Prometheus /metrics server (on `host`, never the API's port); undefined: no metrics at all. */
  metricsPort: number | undefined;
  databasePath: string;
  /** A postgres:// URL selects the PostgreSQL store; then databasePath is not used. */
  databaseUrl: string | undefined;
  /** Most PostgreSQL connections this process opens. */
  databasePoolSize: number;
  /** Longest wait for a PostgreSQL connection, and for each statement, so no request hangs. */
  databaseTimeoutMs: number;
  /** SQLite: longest a write waits for the write lock another process holds, before 503. */
  writeLockTimeoutMs: number;
  logLevel: string;
  /** Requests a minute per token; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** Failed authentications a minute per client address before 429. */
  authFailuresPerMinute: number;
  /** Create and print a token for user `default` when the database has none. */
  bootstrapToken: boolean;
  /** Trust X-Forwarded-For for the client address (only behind a proxy you run). */
  trustProxy: boolean;
  /** Longest wait for a request's headers, so slow senders cannot hold connections. */
  headersTimeoutMs: number;
  /** Longest wait for a whole request, headers and body. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** Browser origins allowed to call the API from their pages (CORS); none: no CORS headers at all. */
  corsOrigins: string[];
  /** A redis:// or rediss:// URL: the rate limits are then shared by every instance that uses it. */
  redisUrl: string | undefined;
  /** Prefix of every key this service writes in Redis, so one Redis can serve other things too. */
  redisKeyPrefix: string;
  /** Access tokens from an OpenID Connect provider, accepted beside pst_ tokens; none: pst_ tokens only. */
  oidc: OidcConfig | undefined;
  /** OpenTelemetry traces: where spans are sent; undefined (no OTLP endpoint set): tracing off, costing nothing. */
  traces: TracesConfig | undefined;
}

/** OTLP over HTTP (gRPC is not supported): the full traces URL, and the encoding. */
export interface TracesConfig {
  url: string;
  protocol: 'http/protobuf' | 'http/json';
}

export { ConfigError };

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = parseDecimalInteger(text, BigInt(min), BigInt(max));
  if (value === undefined) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not "${text}"`);
  return Number(value);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const text = env[name]?.toLowerCase();
  if (text === undefined || text === '') return fallback;
  if (['1', 'true', 'on', 'yes'].includes(text)) return true;
  if (['0', 'false', 'off', 'no'].includes(text)) return false;
  throw new ConfigError(`${name} must be on or off (true/false, 1/0), not "${env[name]}"`);
}

/** Comma-separated exact origins (scheme, host, port), as browsers send them in the Origin header. */
function origins(env: Env, name: string): string[] {
  const entries = (env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    let origin: string | undefined;
    try {
      origin = new URL(entry).origin;
    } catch {
      origin = undefined;
    }
    // Comparing with URL's own serialization refuses paths, a trailing slash, default ports,
    // upper case and '*': none of them would ever equal the Origin a browser sends.
    if (origin !== entry || !/^https?:/.test(entry)) {
      throw new ConfigError(
        `${name} must be comma-separated origins such as https://app.example.com or http://localhost:5173 (scheme, host and port only), not "${entry}"`,
      );
    }
  }
  return [...new Set(entries)];
}

function oneOf(env: Env, name: string, fallback: string, allowed: string[]): string {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  if (!allowed.includes(text)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, not "${text}"`);
  return text;
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  return {
    port,
    host: env.HOST || '127.0.0.1',
    metricsPort: metricsPort(env, port),
    databasePath: env.DATABASE_PATH || './data/plants.db',
    databaseUrl: databaseUrl(env),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseTimeoutMs: integer(env, 'DATABASE_TIMEOUT_MS', 5000, 100, 600_000),
    writeLockTimeoutMs: integer(env, 'WRITE_LOCK_TIMEOUT_MS', 5000, 0, 600_000),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', LOG_LEVELS),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 6000, 0, 1_000_000_000),
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 30, 1, 1_000_000_000),
    bootstrapToken: boolean(env, 'BOOTSTRAP_TOKEN', true),
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    corsOrigins: origins(env, 'CORS_ORIGINS'),
    redisUrl: redisUrl(env),
    redisKeyPrefix: redisKeyPrefix(env),
    oidc: oidcConfig(env),
    traces: traces(env),
    ...timeouts(env),
  };
}

function metricsPort(env: Env, port: number): number | undefined {
  if (env.METRICS_PORT === undefined || env.METRICS_PORT === '') return undefined;
  const value = integer(env, 'METRICS_PORT', 0, 0, 65535);
  // 0 asks the system for a free port each time, so two zeros never collide.
  if (value !== 0 && value === port)
    throw new ConfigError(`METRICS_PORT must differ from PORT (${port}): metrics are never served on the API's port`);
  return value;
}

function databaseUrl(env: Env): string | undefined {
  const text = env.DATABASE_URL;
  if (text === undefined || text === '') return undefined;
  if (!/^postgres(ql)?:\/\//.test(text)) {
    // Only the scheme is echoed: the rest of the value may hold a password.
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(text)?.[0];
    throw new ConfigError(
      `DATABASE_URL must be a postgres:// or postgresql:// URL, not ${scheme ? `a ${scheme} one` : 'a value without that scheme'}`,
    );
  }
  return text;
}

function redisUrl(env: Env): string | undefined {
  const text = env.REDIS_URL;
  if (text === undefined || text === '') return undefined;
  // Only the scheme is ever echoed: the rest of the value may hold a password.
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(text)?.[0];
  const wanted = 'REDIS_URL must be a redis:// or rediss:// URL such as redis://redis.internal:6379';
  if (!/^rediss?:\/\//.test(text)) throw new ConfigError(`${wanted}, not ${scheme ? `a ${scheme} one` : 'a value without that scheme'}`);
  if (!URL.canParse(text) || new URL(text).hostname === '')
    throw new ConfigError(`${wanted}; this ${scheme} URL does not parse or names no host`);
  return text;
}

function redisKeyPrefix(env: Env): string {
  const text = env.REDIS_KEY_PREFIX;
  if (text === undefined || text === '') return 'plant-store:';
  if (!/^[\x21-\x7e]{1,100}$/.test(text))
    throw new ConfigError(`REDIS_KEY_PREFIX must be 1 to 100 printable characters without spaces, not "${text}"`);
  return text;
}

/**
 * Tracing is on when an OTLP endpoint is set, with the standard OpenTelemetry variables: the traces
 * endpoint as it is, or the general one with /v1/traces appended (as the specification says);
 * OTEL_SDK_DISABLED=true turns it off. The other OTEL_* variables are read by the SDK itself.
 */
function traces(env: Env): TracesConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const [name, url] = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT]
    : [
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        env.OTEL_EXPORTER_OTLP_ENDPOINT && `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`,
      ];
  if (!url) return undefined;
  // The value is not echoed: an endpoint URL may carry credentials.
  if (!/^https?:\/\/[^/?#]/.test(url) || !URL.canParse(url))
    throw new ConfigError(`${name} must be an http:// or https:// URL, such as http://localhost:4318`);
  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  // OTLP over gRPC would need another exporter and its native dependencies; collectors accept both HTTP encodings.
  const protocol = oneOf(env, protocolName, 'http/protobuf', ['http/protobuf', 'http/json']) as TracesConfig['protocol'];
  return { url, protocol };
}

function timeouts(env: Env) {
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  }
  return { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 600_000) };
}
