// Tracing off (no OTLP endpoint, the default): the OpenTelemetry SDK is never loaded, no plugin is
// registered and nothing listens to the store, so a request costs what it cost before traces.
import { createRequire } from 'node:module';
import t from 'tap';
import { loadConfig } from '../../src/config.js';
import { commits, storeCalls } from '../../src/channels.js';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';
import { otlpReceiver } from '../helpers/otlp-receiver.js';

/** OpenTelemetry's packages (all CommonJS) loaded in this process so far. */
const loadedOpenTelemetry = () =>
  Object.keys(createRequire(import.meta.url).cache).filter((path) => /[\\/](@opentelemetry|@fastify[\\/]otel)[\\/]/.test(path));

t.test('off: nothing loaded, registered or subscribed; then on, to show the checks can see it', async (t) => {
  t.equal(loadConfig({}).traces, undefined, 'off by default');
  const off = await buildTestApp(t);
  const token = await tokenFor(off, 'alice');
  t.equal((await inject(t, off, { method: 'POST', url: '/plants', headers: bearer(token), payload: { id: 1, name: 'Fern' } })).status, 200);
  t.equal((await inject(t, off, { url: '/plants', headers: bearer(token) })).status, 200);
  t.same(loadedOpenTelemetry(), [], 'no OpenTelemetry module is loaded');
  t.notOk(off.hasPlugin('@fastify/otel'), 'no instrumentation plugin');
  t.notOk(storeCalls.hasSubscribers, 'nothing listens to store calls: handles stay plain');
  t.notOk(commits.hasSubscribers, 'nothing listens to commits');
  await off.close();

  const receiver = await otlpReceiver(t);
  const on = await buildTestApp(t, { traces: { url: `${receiver.endpoint}/v1/traces`, protocol: 'http/json' } });
  t.ok(loadedOpenTelemetry().length > 0, 'on: the SDK is loaded');
  t.ok(on.hasPlugin('@fastify/otel'));
  t.ok(storeCalls.hasSubscribers && commits.hasSubscribers, 'on: the store is listened to');
  await on.close();
  t.notOk(storeCalls.hasSubscribers || commits.hasSubscribers, 'closing the app stops listening');
});
