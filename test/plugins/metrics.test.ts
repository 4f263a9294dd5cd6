// The metrics port listens on METRICS_HOST (127.0.0.1 by default), whatever HOST the API listens on.
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';

t.test('HOST=0.0.0.0 does not expose the metrics port: it binds METRICS_HOST', async (t) => {
  const app = await buildApp(await testConfig(t, { host: '0.0.0.0', metricsPort: 0 }));
  t.teardown(() => app.close());
  t.match(await app.metrics?.listen(), /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, 'the default METRICS_HOST');
});

t.test('METRICS_HOST chooses the address', async (t) => {
  const app = await buildApp(await testConfig(t, { host: '127.0.0.1', metricsHost: '::1', metricsPort: 0 }));
  t.teardown(() => app.close());
  t.match(await app.metrics?.listen(), /^http:\/\/\[::1\]:\d+\/metrics$/);
});
