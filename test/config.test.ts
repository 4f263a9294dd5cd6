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
    ['DATABASE_URL', 'mysql://root:hunter2@db/plants', /^DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL, not a mysql: one$/],
    ['DATABASE_URL', 'postgres:/db', /^DATABASE_URL must be/],
    ['DATABASE_URL', 'db.internal:5432', /^DATABASE_URL must be/],
    ['DATABASE_URL', '//root:hunter2@db/plants', /^DATABASE_URL must be .* not a value without that scheme$/],
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
  for (const value of ['*', 'app.example.com', 'https://app.example.com/', 'https://app.example.com/path', 'https://App.example.com', 'https://app.example.com:443', 'ftp://files.example.com', 'null', 'https://ok.example.com,nope']) {
    t.throws(() => loadConfig({ CORS_ORIGINS: value }), { constructor: ConfigError, message: /^CORS_ORIGINS must be comma-separated origins/ }, value);
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
    ['REDIS_URL', 'http://:hunter2@redis.internal:6379', /^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL such as redis:\/\/redis.internal:6379, not a http: one$/],
    ['REDIS_URL', 'redis.internal:6379', /^REDIS_URL must be .* not a redis.internal: one$/],
    ['REDIS_URL', '//:hunter2@redis.internal', /^REDIS_URL must be .* not a value without that scheme$/],
    ['REDIS_URL', 'redis:/hunter2', /^REDIS_URL must be .* not a redis: one$/],
    ['REDIS_URL', 'redis://:hunter2@', /^REDIS_URL must be .*; this redis: URL does not parse or names no host$/],
    ['REDIS_URL', 'rediss://:hunter2@[::1', /^REDIS_URL must be .*; this rediss: URL does not parse or names no host$/],
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
