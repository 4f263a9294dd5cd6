// Metrics inside one process: off means nothing at all (no port, no subscription, no decorator);
// on, the channels feed the registry until the app closes, and a publication of the Redis helper's
// channel counts; on PostgreSQL a real broken connection counts as a pool error.
import { RENDER_EVERY_MS } from '../../src/observability/metrics-server.js';
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { authFailures, commits, queryTimes, rateLimited, rateLimitStoreErrors, storeCalls } from '../../src/channels.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { bearer, buildTestApp, inject, testConfig, tokenFor } from '../helpers/app.js';
import { adminQuery } from '../helpers/postgres-database.js';
import { parsePrometheusText, valueOf, type Exposition } from '../helpers/prometheus-text.js';
import { onlyOn } from '../helpers/store-under-test.js';
import { until } from '../helpers/until.js';

const CHANNELS = [
  queryTimes,
  storeCalls.start,
  storeCalls.end,
  storeCalls.asyncEnd,
  storeCalls.error,
  commits.start,
  commits.end,
  authFailures,
  rateLimited,
  rateLimitStoreErrors,
];
const anySubscribed = () => CHANNELS.some((channel) => channel.hasSubscribers);
/** Listening TCP servers of this process (a closed one leaves this list a moment after its close callback). */
const listeners = () => process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap').length;
const noListeners = () => until(() => listeners() === 0, 2000, 'every TCP server of this process closed');

const lastScrape = new Map<string, number>();

/** A fresh render: the port serves one render a second (RENDER_EVERY_MS), so a scrape waits out the last one's second. */
async function scrape(url: string): Promise<Exposition> {
  const wait = (lastScrape.get(url) ?? -Infinity) + RENDER_EVERY_MS - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 10));
  const text = await (await fetch(url)).text();
  lastScrape.set(url, performance.now()); // after the answer: the render it got began before this
  return parsePrometheusText(text);
}

async function withMetrics(t: Test): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildTestApp(t, { metricsPort: 0, host: '127.0.0.1' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  if (app.metrics === undefined) throw new Error('METRICS_PORT set, but no metrics');
  return { app, url: await app.metrics.listen() };
}

t.test('off (no METRICS_PORT): no port, no subscription, no metrics decorator, /metrics a 404', async (t) => {
  await noListeners();
  const app = await buildTestApp(t);
  t.equal((await testConfig(t)).metricsPort, undefined, 'off by default');
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.equal(listeners(), 1, 'the API port only');
  t.equal(app.metrics, undefined);
  t.notOk(anySubscribed(), 'nothing listens on the channels: the store hands out plain handles');
  const token = await tokenFor(app, 'alice');
  t.equal((await inject(t, app, { method: 'POST', url: '/plants', headers: bearer(token), payload: { id: 1, name: 'Fern' } })).status, 200);
  t.equal((await inject(t, app, { url: '/metrics' })).status, 404);
  t.notOk(storeCalls.hasSubscribers || queryTimes.hasSubscribers);
});

t.test('on: the channels feed it until the app closes, which closes its port too', async (t) => {
  await noListeners();
  const { app, url } = await withMetrics(t);
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  t.equal(listeners(), 2, 'the API port and the metrics port');
  t.ok(authFailures.hasSubscribers && rateLimitStoreErrors.hasSubscribers);
  t.notOk(storeCalls.hasSubscribers, 'store calls are not traced: that is for traces');
  t.equal(commits.hasSubscribers, app.store.kind === 'sqlite', 'commits are watched on SQLite only');
  t.equal(queryTimes.hasSubscribers, app.store.kind === 'postgres', 'statements are timed on PostgreSQL only');

  // The Redis helper publishes here when its store fails (the limit then fails open).
  rateLimitStoreErrors.publish({ limit: 'token', error: new Error('connect ECONNREFUSED') });
  rateLimitStoreErrors.publish({ limit: 'auth-failures', error: new Error('connect ECONNREFUSED') });
  rateLimitStoreErrors.publish({ limit: 'token', error: new Error('connect ECONNREFUSED') });
  let metrics = await scrape(url);
  t.equal(valueOf(metrics, 'plant_store_rate_limit_store_errors_total', { limit: 'token' }), 2);
  t.equal(valueOf(metrics, 'plant_store_rate_limit_store_errors_total', { limit: 'auth-failures' }), 1);

  t.equal((await inject(t, app, { url: '/plants', headers: bearer('pst_nope') })).status, 401);
  metrics = await scrape(url);
  t.equal(valueOf(metrics, 'plant_store_auth_failures_total', { reason: 'invalid' }), 1, 'injected requests count too');
  t.equal(valueOf(metrics, 'plant_store_http_requests_total', { operation: 'listPlants', method: 'GET', status: '401' }), 1);

  await app.close();
  t.notOk(anySubscribed(), 'closed: nothing subscribed');
  await noListeners(); // both ports closed
  await t.rejects(fetch(url), 'the metrics port refuses connections');
});

t.test('the PostgreSQL pool: a connection the server ends counts as a pool error', onlyOn('postgres'), async (t) => {
  const { app, url } = await withMetrics(t);
  const token = await tokenFor(app, 'alice');
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 200);
  if (!(app.store instanceof PostgresStore)) throw new Error('the PostgreSQL leg runs on a PostgresStore');
  const pool = app.store.pool;
  t.ok(pool.idleCount >= 1, 'an idle connection in the pool');
  const databaseUrl = pool.options.connectionString ?? '';
  // Ends this database's other sessions (the pool's idle connections), as a server restart or failover would.
  await adminQuery(
    databaseUrl,
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  await until(() => pool.idleCount === 0, 5000, 'the pool to drop the ended connections');
  const errors = valueOf(await scrape(url), 'plant_store_postgres_pool_errors_total') ?? 0;
  t.ok(errors >= 1, `pool errors: ${errors}`);
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 200, 'the next request opens a new connection');
  const metrics = await scrape(url);
  t.equal(valueOf(metrics, 'plant_store_postgres_pool_connections', { state: 'in_use' }), 0);
  t.equal(valueOf(metrics, 'plant_store_postgres_pool_waiting'), 0);
});
