// Environment -> typed Config: one schema (env-schema), README's table checked against it; a refusal names the variable and the rule.
import { envSchema } from 'env-schema';
import { Type as T, type Static } from '@sinclair/typebox';
import { ConfigError, DATABASE_NUMBERS, DATABASE_URL_RULE, databaseSettings, DEFAULT_DATABASE_PATH, masked } from './database-settings.js';
import { isOrigin } from './cors-policy.js';

export { ConfigError };
export type Config = ReturnType<typeof loadConfig>;
export type OidcConfig = NonNullable<Config['oidc']>;
export type TracesConfig = NonNullable<Config['traces']>;

/** OIDC tuning (tests shorten it): clock skew leeway, key refetch cooldown, key age, 503 period after the provider was unreachable. */
export const OIDC_DEFAULTS = { clockToleranceSeconds: 30, jwksCooldownMs: 30_000, jwksMaxAgeMs: 600_000, unreachableRetrySeconds: 5 };
/** Where the provider publishes its metadata (OpenID Connect Discovery 1.0, section 4). */
export const discoveryUrl = (issuer: string) => `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;

// Each rule's description completes "NAME must be ...", the message of a refusal.
const int = (minimum: number, maximum: number, fallback?: number) =>
  T.Integer({ minimum, maximum, default: fallback, description: `a whole number from ${minimum} to ${maximum}` });
const oneOf = (values: string[], fallback: string, description = `one of ${values.join(', ')}`) =>
  T.String({ enum: values, default: fallback, description });
const onOff = (fallback: string) => oneOf(['on', 'off', 'true', 'false', '1', '0', 'yes', 'no'], fallback, 'on or off (true/false, 1/0)');
const rule = (pattern: string, description: string, fallback?: string) => T.String({ pattern, description, default: fallback });
const secretUrl = (description: string) => T.Optional(T.String({ description })); // a refusal shows its scheme only
const OTLP = 'an http:// or https:// URL, such as http://localhost:4318';
// OTLP over gRPC would need another exporter and its native dependencies; collectors accept both HTTP encodings.
const PROTOCOLS = 'one of http/protobuf, http/json';
const ISSUER_RULE = "the provider's issuer URL, https:// (http:// for localhost), without query or fragment: https://example.eu.auth0.com/";
const CORS_RULE = 'comma-separated origins such as https://app.example.com or http://localhost:5173 (scheme, host and port only)';
const ISSUER = `^(https://|http://(localhost|127\\.0\\.0\\.1|\\[::1\\])[:/]|http://(localhost|127\\.0\\.0\\.1|\\[::1\\])$)[^\\s?#"'\\\\@]*$`;

/** Every variable the service reads, with its default and rule: README.md's table lists the same (test/readme-config.test.ts). */
export const configSchema = T.Object({
  PORT: int(0, 65535, 3000),
  HOST: T.String({ default: '127.0.0.1' }),
  METRICS_PORT: T.Optional(int(0, 65535)),
  METRICS_HOST: T.String({ default: '127.0.0.1' }),
  DATABASE_PATH: T.String({ default: DEFAULT_DATABASE_PATH }),
  DATABASE_URL: secretUrl(DATABASE_URL_RULE),
  DATABASE_POOL_SIZE: int(...DATABASE_NUMBERS.DATABASE_POOL_SIZE),
  DATABASE_TIMEOUT_MS: int(...DATABASE_NUMBERS.DATABASE_TIMEOUT_MS),
  WRITE_LOCK_TIMEOUT_MS: int(...DATABASE_NUMBERS.WRITE_LOCK_TIMEOUT_MS),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  RATE_LIMIT_PER_MINUTE: int(0, 1_000_000_000, 6000),
  AUTH_FAILURES_PER_MINUTE: int(1, 1_000_000_000, 30),
  REDIS_URL: secretUrl('a redis:// or rediss:// URL with a host, and a database number as its path if any: redis://cache:6379/2'),
  REDIS_KEY_PREFIX: rule('^[\\x21-\\x7e]{1,100}$', '1 to 100 printable characters without spaces', 'plant-store:'),
  BOOTSTRAP_TOKEN: onOff('on'),
  TRUST_PROXY: onOff('off'),
  HEADERS_TIMEOUT_MS: int(100, 600_000, 10_000),
  REQUEST_TIMEOUT_MS: int(100, 600_000, 30_000),
  KEEP_ALIVE_TIMEOUT_MS: int(100, 600_000, 72_000),
  SHED_EVENT_LOOP_DELAY_MS: int(0, 60_000, 500),
  SHED_HEAP_USED_MB: int(0, 1_000_000, 0),
  CORS_ORIGINS: T.Unsafe<string[]>(T.String({ separator: ',', default: '', description: CORS_RULE })),
  OIDC_ISSUER: T.Optional(rule(ISSUER, ISSUER_RULE)),
  OIDC_AUDIENCE: T.Optional(T.String()),
  // No quote or backslash: the claim's name is quoted in challenges.
  OIDC_USER_CLAIM: rule('^[\\x21\\x23-\\x5b\\x5d-\\x7e]{1,200}$', 'a claim name such as sub or email', 'sub'),
  OIDC_DOCS_CLIENT_ID: T.Optional(T.String()),
  OTEL_EXPORTER_OTLP_ENDPOINT: secretUrl(OTLP),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: secretUrl(OTLP),
  OTEL_EXPORTER_OTLP_PROTOCOL: T.Optional(T.String({ description: PROTOCOLS })),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: T.Optional(T.String({ description: PROTOCOLS })),
  OTEL_SDK_DISABLED: T.Optional(T.String()),
});
type Camel<S extends string> = S extends `${infer H}_${infer R}` ? `${Lowercase<H>}${Capitalize<Camel<R>>}` : Lowercase<S>;
const rules: Record<string, { type?: string; description?: string }> = configSchema.properties;

// URLs that may hold a password, and what the schema cannot say of them (Redis reads the path as a database number).
const validUrl: Record<string, (url: URL) => boolean> = {
  REDIS_URL: (url) => /^rediss?:\/\//.test(url.href) && url.hostname !== '' && /^(\/\d*)?$/.test(url.pathname),
  OTEL_EXPORTER_OTLP_ENDPOINT: (url) => /^https?:$/.test(url.protocol),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: (url) => /^https?:$/.test(url.protocol),
};

export function loadConfig(raw: NodeJS.ProcessEnv = process.env) {
  const data = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined && value !== '')); // empty is unset
  // The value as JSON (one line, whatever it holds) without a URL's user and password; of a secret URL, its scheme only.
  const shown = (name: string) => (validUrl[name] ? masked(raw[name] ?? '') : JSON.stringify(raw[name]?.replace(/\/\/[^/?#]*@/, '//…@')));
  const refusal = (names: Iterable<string>) =>
    new ConfigError([...names].map((name) => `${name} must be ${rules[name]?.description}, not ${shown(name)}`).join('; '));
  const url = (name: string, value = data[name]) => {
    if (value && !(URL.canParse(value) && validUrl[name]!(new URL(value)))) throw refusal([name]);
    return value;
  };
  // Ajv would read " " as 0 and "0x10", "1e3" or "Infinity" as numbers: a whole number is decimal digits.
  const notDecimal = Object.keys(data).filter((name) => rules[name]?.type === 'integer' && !/^\d+$/.test(data[name]!));
  if (notDecimal.length > 0) throw refusal(notDecimal);
  let env: Static<typeof configSchema>;
  try {
    env = envSchema<Static<typeof configSchema>>({ schema: configSchema, data, env: false });
  } catch (error) {
    throw refusal(new Set(((error as { errors?: Array<{ instancePath: string }> }).errors ?? []).map((e) => e.instancePath.slice(1))));
  }
  const camelCase = (name: string) => name.toLowerCase().replace(/_(.)/g, (_, letter: string) => letter.toUpperCase());
  const camel = Object.fromEntries(Object.entries(env).map(([name, value]) => [camelCase(name), value]));
  const on = (value: string) => ['on', 'true', '1', 'yes'].includes(value);
  // Rules across variables, which no schema says. METRICS_PORT 0 asks the system for a free port, so two zeros never collide.
  if (env.METRICS_PORT && env.METRICS_PORT === env.PORT)
    throw new ConfigError(`METRICS_PORT must differ from PORT (${env.PORT}): metrics are never served on the API's port`);
  if (env.HEADERS_TIMEOUT_MS > env.REQUEST_TIMEOUT_MS)
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${env.HEADERS_TIMEOUT_MS}) must not exceed REQUEST_TIMEOUT_MS (${env.REQUEST_TIMEOUT_MS})`);
  const oidcSet = ['OIDC_ISSUER', 'OIDC_AUDIENCE', 'OIDC_USER_CLAIM', 'OIDC_DOCS_CLIENT_ID'].filter((name) => data[name]);
  if (oidcSet.length > 0 && !(env.OIDC_ISSUER && env.OIDC_AUDIENCE))
    throw new ConfigError(`OIDC_ISSUER and OIDC_AUDIENCE (this API's \`aud\`) must be set together, not only ${oidcSet.join(', ')}`);
  // Exact origins: comparing with URL's own serialization refuses what a browser never sends as Origin.
  const corsOrigins = [...new Set(env.CORS_ORIGINS.map((entry) => entry.trim()))].filter(Boolean);
  if (corsOrigins.some((entry) => !isOrigin(entry))) throw refusal(['CORS_ORIGINS']);
  // Tracing is on when an OTLP endpoint is set (the traces one as is, or the general one + /v1/traces), unless OTEL_SDK_DISABLED=true.
  const endpoint = (['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const).find((name) => env[name]);
  const protocol = (['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL'] as const).find((name) => env[name]);
  const traced = endpoint && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true' ? url(endpoint) : undefined;
  const tracesUrl = traced && (endpoint === 'OTEL_EXPORTER_OTLP_ENDPOINT' ? `${traced.replace(/\/+$/, '')}/v1/traces` : traced);
  if (traced && protocol && !['http/protobuf', 'http/json'].includes(env[protocol]!)) throw refusal([protocol]);
  const { OIDC_ISSUER: issuer, OIDC_AUDIENCE: audience = '', OIDC_USER_CLAIM: userClaim, OIDC_DOCS_CLIENT_ID: docsClientId } = env;
  return {
    ...(camel as { [K in keyof typeof env as Camel<K>]: (typeof env)[K] }),
    ...databaseSettings(raw), // the CLI's own reading of them: one rule, and DATABASE_URL checked
    redisUrl: url('REDIS_URL'),
    bootstrapToken: on(env.BOOTSTRAP_TOKEN),
    trustProxy: on(env.TRUST_PROXY),
    shed: { eventLoopDelayMs: env.SHED_EVENT_LOOP_DELAY_MS, heapUsedBytes: env.SHED_HEAP_USED_MB * 1024 * 1024 },
    corsOrigins,
    oidc: issuer ? { issuer, audience, userClaim, docsClientId, ...OIDC_DEFAULTS } : undefined,
    traces: tracesUrl ? { url: tracesUrl, protocol: (protocol && env[protocol]) ?? 'http/protobuf' } : undefined,
  };
}
