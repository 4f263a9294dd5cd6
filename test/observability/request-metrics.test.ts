// What measureRequests relies on in prom-client: a Counter's collect() may read a Histogram's get() at scrape
// time, so plant_store_http_requests_total is each series' _count, a counter, with no series before a request.
import { Registry } from 'prom-client';
import t from 'tap';
import { measureRequests } from '../../src/observability/request-metrics.js';
import { parsePrometheusText, valueOf } from '../helpers/prometheus-text.js';

t.test('requests_total is the duration histogram count of each series, read at scrape time', async (t) => {
  const registry = new Registry();
  const duration = measureRequests(registry);
  const empty = parsePrometheusText(await registry.metrics());
  t.equal(empty.types.get('plant_store_http_requests_total'), 'counter');
  t.same(empty.samples, [], 'no series before a request');

  for (let i = 0; i < 3; i++) duration.observe({ operation: 'listPlants', method: 'GET', status: 200 }, 0.002);
  duration.observe({ operation: 'addPlant', method: 'POST', status: 409 }, 0.004);
  const first = parsePrometheusText(await registry.metrics());
  t.equal(valueOf(first, 'plant_store_http_requests_total', { operation: 'listPlants', method: 'GET', status: '200' }), 3);
  t.equal(valueOf(first, 'plant_store_http_requests_total', { operation: 'addPlant', method: 'POST', status: '409' }), 1);
  t.equal(valueOf(first, 'plant_store_http_request_duration_seconds_count', { operation: 'listPlants', method: 'GET', status: '200' }), 3);

  duration.observe({ operation: 'listPlants', method: 'GET', status: 200 }, 0.002);
  const second = parsePrometheusText(await registry.metrics());
  t.equal(
    valueOf(second, 'plant_store_http_requests_total', { operation: 'listPlants', method: 'GET', status: '200' }),
    4,
    'each scrape reads the count again, never adds it twice',
  );
});
