// Environment -> Config: the database and CORS settings, and the messages that name a bad one
// (the other settings are checked through the real process in server.test.ts).
import t from 'tap';
import { ConfigError, loadConfig } from '../src/config.js';

t.test('without DATABASE_URL the SQLite file is used; the PostgreSQL settings have defaults', async (t) => {
  const config = loadConfig({});
  t.equal(config.databaseUrl, undefined);
  t.equal(config.databasePath, './data/plants.db');
  t.equal(config.databasePoolSize, 10);
  t.equal(config.databaseTimeoutMs, 5000);
  t.equal(config.writeLockTimeoutMs, 5000);
  t.equal(loadConfig({ WRITE_LOCK_TIMEOUT_MS: '0' }).writeLockTimeoutMs, 0, '0: never wait for the write lock');
  t.equal(loadConfig({ DATABASE_URL: '' }).databaseUrl, undefined, 'empty is unset');
});

t.test('DATABASE_URL selects PostgreSQL with postgres:// or postgresql://', async (t) => {
  for (const url of ['postgres://app:pw@db.internal:5432/plants', 'postgresql://app@10.0.0.5/plants?sslmode=require']) {
    t.equal(loadConfig({ DATABASE_URL: url }).databaseUrl, url);
  }
  const config = loadConfig({ DATABASE_URL: 'postgres://db/plants', DATABASE_POOL_SIZE: '25', DATABASE_TIMEOUT_MS: '2500' });
  t.same([config.databasePoolSize, config.databaseTimeoutMs], [25, 2500]);
});

t.test('a bad database setting is a ConfigError naming the variable, never repeating a password', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    [
      'DATABASE_URL',
      'mysql://root:hunter2@db/plants',
      /^DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL, not this mysql: URL \(the rest is not shown: it may hold a password\)$/,
    ],
    ['DATABASE_URL', 'postgres:/db', /^DATABASE_URL must be/],
    ['DATABASE_URL', 'db.internal:5432', /^DATABASE_URL must be/],
    ['DATABASE_URL', '//root:hunter2@db/plants', /^DATABASE_URL must be .*, not this value without a scheme \(the rest is not shown/],
    ['DATABASE_URL', 'postgres:/db?password=hunter2', /^DATABASE_URL must be .*, not this postgres: URL \(/],
    ['DATABASE_POOL_SIZE', '0', /^DATABASE_POOL_SIZE must be a whole number from 1 to 1000/],
    ['DATABASE_POOL_SIZE', 'ten', /^DATABASE_POOL_SIZE must be/],
    ['DATABASE_TIMEOUT_MS', '50', /^DATABASE_TIMEOUT_MS must be a whole number from 100 to 600000/],
    ['DATABASE_TIMEOUT_MS', '1.5', /^DATABASE_TIMEOUT_MS must be/],
    ['WRITE_LOCK_TIMEOUT_MS', '-1', /^WRITE_LOCK_TIMEOUT_MS must be a whole number from 0 to 600000/],
    ['WRITE_LOCK_TIMEOUT_MS', '600001', /^WRITE_LOCK_TIMEOUT_MS must be/],
  ];
  for (const [name, value, message] of cases) {
    const error = t.throws(() => loadConfig({ [name]: value }), `${name}=${value}`) as Error;
    t.ok(error instanceof ConfigError, 'a ConfigError: the process exits 1 with the message');
    t.match(error.message, message);
    t.notMatch(error.message, /hunter2/);
  }
});

t.test('CORS_ORIGINS: none by default; exact origins, comma-separated', async (t) => {
  t.same(loadConfig({}).corsOrigins, []);
  t.same(loadConfig({ CORS_ORIGINS: '' }).corsOrigins, []);
  t.same(loadConfig({ CORS_ORIGINS: 'https://app.example.com' }).corsOrigins, ['https://app.example.com']);
  t.same(loadConfig({ CORS_ORIGINS: ' http://localhost:5173 , https://app.example.com,,http://localhost:5173' }).corsOrigins, [
    'http://localhost:5173',
    'https://app.example.com',
  ]);
});

t.test('CORS_ORIGINS: anything a browser would never send as Origin stops start-up, naming the variable', async (t) => {
  for (const value of [
    '*',
    'app.example.com',
    'https://app.example.com/',
    'https://app.example.com/path',
    'https://App.example.com',
    'https://app.example.com:443',
    'ftp://files.example.com',
    'null',
    'https://ok.example.com,nope',
  ]) {
    t.throws(
      () => loadConfig({ CORS_ORIGINS: value }),
      { constructor: ConfigError, message: /^CORS_ORIGINS must be comma-separated origins/ },
      value,
    );
  }
});

t.test('REDIS_URL: off by default; redis:// or rediss:// URLs share the rate limits; the key prefix has a default', async (t) => {
  t.equal(loadConfig({}).redisUrl, undefined);
  t.equal(loadConfig({ REDIS_URL: '' }).redisUrl, undefined, 'empty is unset');
  for (const url of ['redis://127.0.0.1:6379', 'redis://:hunter2@redis.internal:6380/2', 'rediss://user:hunter2@redis.example.com']) {
    t.equal(loadConfig({ REDIS_URL: url }).redisUrl, url);
  }
  t.equal(loadConfig({}).redisKeyPrefix, 'plant-store:');
  t.equal(loadConfig({ REDIS_KEY_PREFIX: 'shop-eu:' }).redisKeyPrefix, 'shop-eu:');
});

t.test('a bad Redis setting is a ConfigError naming the variable, never repeating a password', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    [
      'REDIS_URL',
      'http://:hunter2@redis.internal:6379',
      /^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL with a host, and a database number as its path if any: redis:\/\/cache:6379\/2, not this http: URL \(the rest is not shown/,
    ],
    ['REDIS_URL', 'redis.internal:6379', /^REDIS_URL must be .*, not this redis.internal: URL \(/],
    ['REDIS_URL', '//:hunter2@redis.internal', /^REDIS_URL must be .*, not this value without a scheme \(/],
    ['REDIS_URL', 'redis:/hunter2', /^REDIS_URL must be .*, not this redis: URL \(/],
    ['REDIS_URL', 'redis://:hunter2@', /^REDIS_URL must be .*, not this redis: URL \(/],
    ['REDIS_URL', 'rediss://:hunter2@[::1', /^REDIS_URL must be .*, not this rediss: URL \(/],
    // ioredis would run SELECT NaN at its first connection, and the process would stop then, naming nothing.
    [
      'REDIS_URL',
      'redis://:hunter2@redis.internal/notanumber',
      /^REDIS_URL must be .*a database number as its path.*, not this redis: URL/,
    ],
    ['REDIS_URL', 'redis://:hunter2@redis.internal/2/x', /^REDIS_URL must be .*, not this redis: URL/],
    ['REDIS_URL', 'redis://redis.internal/x?password=hunter2', /^REDIS_URL must be .*, not this redis: URL \(/],
    ['REDIS_KEY_PREFIX', 'plant store:', /^REDIS_KEY_PREFIX must be 1 to 100 printable characters without spaces/],
    ['REDIS_KEY_PREFIX', 'x'.repeat(101), /^REDIS_KEY_PREFIX must be/],
  ];
  for (const [name, value, message] of cases) {
    const error = t.throws(() => loadConfig({ [name]: value }), `${name}=${value}`) as Error;
    t.ok(error instanceof ConfigError, 'a ConfigError: the process exits 1 with the message');
    t.match(error.message, message);
    t.notMatch(error.message, /hunter2/);
  }
});

t.test('OIDC settings: none by default; issuer and audience together; the user claim defaults to sub', async (t) => {
  t.equal(loadConfig({}).oidc, undefined, 'without OIDC_ISSUER, pst_ tokens only');
  const oidc = loadConfig({ OIDC_ISSUER: 'https://example.eu.auth0.com/', OIDC_AUDIENCE: 'https://plants.example.com' }).oidc;
  t.match(oidc, {
    issuer: 'https://example.eu.auth0.com/',
    audience: 'https://plants.example.com',
    userClaim: 'sub',
    docsClientId: undefined,
    clockToleranceSeconds: 30,
  });
  const keycloak = loadConfig({
    OIDC_ISSUER: 'https://sso.example.com/realms/plants',
    OIDC_AUDIENCE: 'plant-store',
    OIDC_USER_CLAIM: 'preferred_username',
    OIDC_DOCS_CLIENT_ID: 'plant-store-docs',
  }).oidc;
  t.match(keycloak, { issuer: 'https://sso.example.com/realms/plants', userClaim: 'preferred_username', docsClientId: 'plant-store-docs' });
  t.equal(
    loadConfig({ OIDC_ISSUER: 'http://127.0.0.1:8080', OIDC_AUDIENCE: 'a' }).oidc?.issuer,
    'http://127.0.0.1:8080',
    'http only for a provider on this machine',
  );
});

t.test('a bad OIDC setting is a ConfigError naming the variable', async (t) => {
  const issuer = { OIDC_AUDIENCE: 'https://plants.example.com' };
  const cases: Array<[Record<string, string>, RegExp]> = [
    [
      { OIDC_ISSUER: 'https://example.eu.auth0.com/' },
      /^OIDC_ISSUER and OIDC_AUDIENCE \(this API's `aud`\) must be set together, not only OIDC_ISSUER$/,
    ],
    [{ ...issuer, OIDC_ISSUER: 'http://sso.example.com' }, /^OIDC_ISSUER must be the provider's issuer URL, https:\/\//],
    [{ ...issuer, OIDC_ISSUER: 'sso.example.com' }, /^OIDC_ISSUER must be/],
    [{ ...issuer, OIDC_ISSUER: 'https://sso.example.com/?tenant=1' }, /^OIDC_ISSUER must be/],
    [{ ...issuer, OIDC_ISSUER: 'https://sso.example.com/#x' }, /^OIDC_ISSUER must be/],
    [{ ...issuer, OIDC_ISSUER: 'https://user:pw@sso.example.com/' }, /^OIDC_ISSUER must be/],
    [{ ...issuer, OIDC_ISSUER: 'https://sso.example.com/a b' }, /^OIDC_ISSUER must be/],
    [{ ...issuer, OIDC_ISSUER: 'https://sso.example.com', OIDC_USER_CLAIM: 'a"b' }, /^OIDC_USER_CLAIM must be a claim name/],
    [{ ...issuer, OIDC_ISSUER: 'https://sso.example.com', OIDC_USER_CLAIM: 'two words' }, /^OIDC_USER_CLAIM must be a claim name/],
    [{ OIDC_AUDIENCE: 'x' }, /^OIDC_ISSUER and OIDC_AUDIENCE .* must be set together, not only OIDC_AUDIENCE$/],
    [{ OIDC_DOCS_CLIENT_ID: 'x', OIDC_USER_CLAIM: 'email' }, /must be set together, not only OIDC_USER_CLAIM, OIDC_DOCS_CLIENT_ID$/],
  ];
  for (const [env, message] of cases) {
    const error = t.throws(() => loadConfig(env), JSON.stringify(env)) as Error;
    t.ok(error instanceof ConfigError, 'a ConfigError');
    t.match(error.message, message);
  }
});

t.test('traces: on when an OTLP endpoint is set, with the standard OpenTelemetry variables', async (t) => {
  t.equal(loadConfig({}).traces, undefined, 'off by default');
  t.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }).traces, undefined, 'empty is unset');
  t.same(
    loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).traces,
    { url: 'http://collector:4318/v1/traces', protocol: 'http/protobuf' },
    '/v1/traces appended; protobuf, the OTLP default',
  );
  t.same(
    loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example/otlp/' }).traces?.url,
    'https://collector.example/otlp/v1/traces',
    'a base path is kept',
  );
  t.same(
    loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom' }).traces?.url,
    'http://b:4318/custom',
    'the traces endpoint wins, as it is',
  );
  t.same(
    loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).traces?.protocol,
    'http/json',
  );
  t.same(
    loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    }).traces?.protocol,
    'http/json',
    'the traces protocol wins',
  );
  t.equal(
    loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }).traces,
    undefined,
    'OTEL_SDK_DISABLED=true turns it off',
  );
  t.equal(
    loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).traces,
    undefined,
    'a protocol set host-wide is not read while tracing is off',
  );
  t.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318', OTEL_SDK_DISABLED: 'true' }).traces, undefined, 'nor an endpoint');
});

t.test('traces: a bad endpoint or protocol stops start-up, naming the variable (not echoing the URL)', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      /^OTEL_EXPORTER_OTLP_ENDPOINT must be an http:\/\/ or https:\/\/ URL, such as http:\/\/localhost:4318, not this collector: URL \(/,
    ],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' }, /^OTEL_EXPORTER_OTLP_ENDPOINT must be an http/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://' }, /^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http/],
    [
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://user:secret@[bad' },
      /^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http:\/\/ or https:\/\/ URL, such as http:\/\/localhost:4318, not this http: URL \(/,
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      /^OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json, not "grpc"$/,
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'json' },
      /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be one of/,
    ],
  ];
  for (const [env, message] of cases) {
    const error = t.throws(() => loadConfig(env), JSON.stringify(env)) as Error;
    t.ok(error instanceof ConfigError);
    t.match(error.message, message);
  }
});

t.test('METRICS_PORT: off unless set, never the API port', async (t) => {
  t.equal(loadConfig({}).metricsPort, undefined, 'off by default');
  t.equal(loadConfig({ METRICS_PORT: '' }).metricsPort, undefined, 'empty is unset');
  t.equal(loadConfig({ METRICS_PORT: '9464' }).metricsPort, 9464);
  t.equal(loadConfig({ METRICS_PORT: '0', PORT: '0' }).metricsPort, 0, 'both 0: the system picks two free ports');
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ METRICS_PORT: '3000' }, /^METRICS_PORT must differ from PORT \(3000\): metrics are never served on the API's port$/],
    [{ METRICS_PORT: '8080', PORT: '8080' }, /^METRICS_PORT must differ from PORT \(8080\)/],
    [{ METRICS_PORT: '65536' }, /^METRICS_PORT must be a whole number from 0 to 65535, not "65536"$/],
    [{ METRICS_PORT: '-1' }, /^METRICS_PORT must be a whole number/],
    [{ METRICS_PORT: '9464x' }, /^METRICS_PORT must be a whole number/],
    [{ METRICS_PORT: 'on' }, /^METRICS_PORT must be a whole number/],
  ];
  for (const [env, message] of cases) t.throws(() => loadConfig(env), { constructor: ConfigError, message }, JSON.stringify(env));
});

t.test('a whole number is decimal digits: what a number parser would also take stops start-up', async (t) => {
  // A blank RATE_LIMIT_PER_MINUTE was read as 0, which turns the limit off; 0x9A01 and 1e3 as ports.
  const cases: Array<[string, string]> = [
    ['RATE_LIMIT_PER_MINUTE', ' '],
    ['RATE_LIMIT_PER_MINUTE', '\t'],
    ['RATE_LIMIT_PER_MINUTE', 'Infinity'],
    ['PORT', '0x9A01'],
    ['PORT', '1e3'],
    ['PORT', ' 3000'],
    ['METRICS_PORT', ' '],
    ['REQUEST_TIMEOUT_MS', '3e4'],
    ['DATABASE_POOL_SIZE', '+5'],
  ];
  for (const [name, value] of cases) {
    const error = t.throws(() => loadConfig({ [name]: value }), `${name}=${JSON.stringify(value)}`) as Error;
    t.ok(error instanceof ConfigError, 'a ConfigError');
    t.ok(error.message.startsWith(`${name} must be a whole number from `), error.message);
    t.ok(error.message.endsWith(`, not ${JSON.stringify(value)}`), 'the value as it was set, quoted');
  }
  t.equal(loadConfig({ PORT: '3001' }).port, 3001, 'digits are read as before');
});

t.test('a refusal is one line, and never shows the user and password of a URL', async (t) => {
  const newline = t.throws(() => loadConfig({ PORT: '39410\nFAKE LINE' })) as Error;
  t.equal(newline.message, 'PORT must be a whole number from 0 to 65535, not "39410\\nFAKE LINE"');
  const issuer = t.throws(() => loadConfig({ OIDC_ISSUER: 'https://u:hunter2@idp.example.com/', OIDC_AUDIENCE: 'a' })) as Error;
  t.match(issuer.message, /^OIDC_ISSUER must be .*, not "https:\/\/…@idp\.example\.com\/"$/);
  t.notMatch(issuer.message, /hunter2/);
});
