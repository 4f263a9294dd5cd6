// The hot-path histogram: buckets are "less than or equal" as Prometheus defines le, cumulative in
// the text, the count doubles as a counter, and prom-client's registry writes it.
import { Registry } from 'prom-client';
import t from 'tap';
import { HotHistogram } from '../../src/observability/hot-histogram.js';
import { parsePrometheusText, valueOf } from '../helpers/prometheus-text.js';

t.test('observations land in the first bucket whose bound they do not exceed', async (t) => {
  const registry = new Registry();
  const histogram = new HotHistogram({
    name: 'h_seconds',
    help: 'A test histogram.',
    labelNames: ['kind'],
    buckets: [0.1, 1],
    registry,
    countName: 'h_total',
    countHelp: 'Observations.',
  });
  const a = histogram.series('a');
  t.equal(histogram.series('a'), a, 'the same series for the same labels');
  for (const value of [0, 0.1, 0.5, 1, 7]) histogram.observe(a, value);
  histogram.observe(histogram.series('b "quoted"\n'), 0.05);
  const text = await registry.metrics();
  const metrics = parsePrometheusText(text);
  t.equal(metrics.types.get('h_seconds'), 'histogram');
  t.equal(metrics.types.get('h_total'), 'counter');
  t.same(
    [
      valueOf(metrics, 'h_seconds_bucket', { kind: 'a', le: '0.1' }),
      valueOf(metrics, 'h_seconds_bucket', { kind: 'a', le: '1' }),
      valueOf(metrics, 'h_seconds_bucket', { kind: 'a', le: '+Inf' }),
    ],
    [2, 4, 5],
  );
  t.equal(valueOf(metrics, 'h_seconds_sum', { kind: 'a' }), 8.6);
  t.equal(valueOf(metrics, 'h_seconds_count', { kind: 'a' }), 5);
  t.equal(valueOf(metrics, 'h_total', { kind: 'a' }), 5);
  t.equal(valueOf(metrics, 'h_total', { kind: 'b "quoted"\n' }), 1, 'label values escaped and read back');
  t.match(text, /# HELP h_seconds A test histogram\.\n# TYPE h_seconds histogram\n/);
});

t.test('nothing observed: the families are declared, with no series', async (t) => {
  const registry = new Registry();
  new HotHistogram({ name: 'empty_seconds', help: 'Empty.', labelNames: ['kind'], buckets: [1], registry });
  const metrics = parsePrometheusText(await registry.metrics());
  t.equal(metrics.types.get('empty_seconds'), 'histogram');
  t.same(metrics.samples, []);
});

t.test('series are told apart by each label value, not by the values run together', async (t) => {
  const registry = new Registry();
  const histogram = new HotHistogram({
    name: 'pair_seconds',
    help: 'Two labels.',
    labelNames: ['first', 'second'],
    buckets: [1],
    registry,
  });
  const ab = histogram.series('a b', 'c');
  const a = histogram.series('a', 'b c');
  t.not(ab, a, 'two series');
  t.equal(histogram.series('a', 'b c'), a, 'the same series found again');
  histogram.observe(ab, 0.5);
  histogram.observe(a, 2);
  histogram.observe(a, 3);
  const metrics = parsePrometheusText(await registry.metrics());
  t.equal(valueOf(metrics, 'pair_seconds_count', { first: 'a b', second: 'c' }), 1);
  t.equal(valueOf(metrics, 'pair_seconds_count', { first: 'a', second: 'b c' }), 2);
  t.equal(valueOf(metrics, 'pair_seconds_sum', { first: 'a', second: 'b c' }), 5);
});
