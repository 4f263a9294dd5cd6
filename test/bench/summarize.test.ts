// The benchmark's arithmetic: ratios are medians of per-round ratios, targets are judged on them,
// and several load generators' results (one per server instance) add up as one.
import t from 'tap';
import { shareOf, INSTANCE_ID_STRIDE } from '../../bench/load/plan.js';
import type { Measurement } from '../../bench/measure.js';
import type { Scenario } from '../../bench/scenario.js';
import { summarize } from '../../bench/summarize.js';
import { measurement as measurementOf } from './measurement.js';

const measurement = (label: string, round: number, requestsPerSecond: number, extra: Partial<Measurement> = {}) =>
  measurementOf('s', label, round, requestsPerSecond, extra);

const scenario = (targets: Scenario['targets']): Scenario => ({
  id: 's',
  title: 'S',
  about: '',
  quick: true,
  servers: [],
  contestants: [
    { label: 'ours', plan: () => ({ kind: 'get', path: '/' }) },
    { label: 'ref', plan: () => ({ kind: 'get', path: '/' }) },
  ],
  ours: 'ours',
  targets,
});

t.test('a ratio is the median of per-round ratios, not the ratio of medians', async (t) => {
  const rounds = [
    [50, 100],
    [60, 100],
    [90, 100],
    [61, 50],
  ] as const;
  const measured = rounds.flatMap(([ours, ref], i) => [measurement('ours', i + 1, ours), measurement('ref', i + 1, ref)]);
  const summary = summarize(scenario([{ kind: 'ratio', of: 'ours', to: 'ref', atLeast: 0.75 }]), measured);
  // Per-round ratios 0.5, 0.6, 0.9, 1.22: median (0.6 + 0.9) / 2 = 0.75; medians alone would give 60.5 / 100.
  t.equal(Number(summary.ratios[0]!.median.toFixed(6)), 0.75);
  t.equal(summary.ratios[0]!.min, 0.5);
  t.same(
    summary.targets.map((target) => target.met),
    [true],
  );
  const stricter = summarize(scenario([{ kind: 'ratio', of: 'ours', to: 'ref', atLeast: 0.76 }]), measured);
  t.same(
    stricter.targets.map((target) => target.met),
    [false],
    'just below the target is not met',
  );
});

t.test('tail, memory and failures are judged and counted', async (t) => {
  const measured = [
    measurement('ours', 1, 100, { p50Ms: 1, p99Ms: 3, peakRssMB: 130, unexpected: 2 }),
    measurement('ours', 2, 100, { p50Ms: 1, p99Ms: 5, peakRssMB: 150 }),
    measurement('ours', 3, 100, { p50Ms: 2, p99Ms: 6, peakRssMB: 140, errors: 1 }),
    measurement('ref', 1, 100, { peakRssMB: 100 }),
    measurement('ref', 2, 100, { peakRssMB: 105 }),
    measurement('ref', 3, 100, { peakRssMB: 110 }),
  ];
  const summary = summarize(
    scenario([
      { kind: 'tail', of: 'ours', atMost: 4 },
      { kind: 'rss', of: 'ours', to: 'ref', megabytes: 40 },
    ]),
    measured,
  );
  t.same(
    summary.targets.map((target) => [target.measured, target.met]),
    [
      ['3.00 ×', true], // p99/p50 per round: 3, 5, 3
      ['+40.0 MB', true], // highest peaks: 150 - 110
    ],
  );
  const ours = summary.contestants.find((c) => c.label === 'ours')!;
  t.equal(ours.unexpected, 2);
  t.equal(ours.errors, 1);
});

t.test('each load generator of a multi-instance server gets its own ids', async (t) => {
  t.same(shareOf({ kind: 'post', firstId: 1000, step: 1 }, 0), { kind: 'post', firstId: 1000, step: 1 });
  t.same(shareOf({ kind: 'delete', firstId: 1000 }, 2), { kind: 'delete', firstId: 1000 + 2 * INSTANCE_ID_STRIDE });
  t.same(
    shareOf({ kind: 'post', firstId: -1000, step: -1 }, 1),
    { kind: 'post', firstId: -1000 - INSTANCE_ID_STRIDE, step: -1 },
    'counting down, further down',
  );
  t.same(shareOf({ kind: 'get', path: '/plants' }, 1), { kind: 'get', path: '/plants' }, 'reads are shared as they are');
});
