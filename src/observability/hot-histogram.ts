// A histogram for the hot path: each labelled series is a Float64Array, found through one Map per
// label (no key string built), and an observation is a bucket search and two increments. prom-client's
// registry formats it at scrape time, like its own metrics, through the object shape its registry reads.
import type { Metric, Registry } from 'prom-client';

/** One labelled series: per-bucket (not cumulative) counts, the +Inf bucket, then the sum. */
export type Series = Float64Array;

/** What prom-client's registry reads from a metric's get() to write its text. */
interface Collected {
  name: string;
  help: string;
  type: 'histogram' | 'counter';
  aggregator: 'sum';
  values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }>;
}

export class HotHistogram<Label extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly #labelNames: readonly Label[];
  readonly #bounds: readonly number[];
  /** Every series made, in order of first use (what get() reports). */
  readonly #series: Array<{ labels: Record<Label, string>; counts: Series }> = [];
  /** The series by label values, one Map per label: a lookup hashes the values (usually constants of the code, hashed once) and builds no key. */
  readonly #index = new Map<string, unknown>();

  /** `countName`: also register a counter of the observations under that name (its values are the histogram's counts). */
  constructor(options: {
    name: string;
    help: string;
    labelNames: readonly Label[];
    buckets: readonly number[];
    registry: Registry;
    countName?: string;
    countHelp?: string;
  }) {
    this.name = options.name;
    this.help = options.help;
    this.#labelNames = options.labelNames;
    this.#bounds = options.buckets;
    // The registry reads `name` and calls get(); it is typed for its own classes only.
    options.registry.registerMetric(this as unknown as Metric);
    if (options.countName !== undefined) {
      const name = options.countName;
      const help = options.countHelp ?? options.help;
      options.registry.registerMetric({ name, help, type: 'counter', get: () => this.#counter(name, help) } as unknown as Metric);
    }
  }

  /** The series of these label values (in labelNames' order), made on first use. Cheap enough to call per observation. */
  series(...values: string[]): Series {
    let level = this.#index;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Map<string, unknown> | undefined;
      if (next === undefined) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    // Without labels, the one series is kept under ''.
    const key = values[last] ?? '';
    let found = level.get(key) as Series | undefined;
    if (found === undefined) {
      const labels = Object.fromEntries(this.#labelNames.map((name, i) => [name, values[i] ?? ''])) as Record<Label, string>;
      found = new Float64Array(this.#bounds.length + 2);
      this.#series.push({ labels, counts: found });
      level.set(key, found);
    }
    return found;
  }

  observe(series: Series, value: number): void {
    const bounds = this.#bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++;
    series[bucket]!++;
    series[bounds.length + 1]! += value;
  }

  /** For the registry: cumulative buckets, sum and count per series, as prom-client's Histogram gives them. */
  get(): Collected {
    const values: Collected['values'] = [];
    const inf = this.#bounds.length;
    for (const { labels, counts } of this.#series) {
      let cumulative = 0;
      for (let bucket = 0; bucket <= inf; bucket++) {
        cumulative += counts[bucket]!;
        values.push({
          metricName: `${this.name}_bucket`,
          labels: { ...labels, le: bucket === inf ? '+Inf' : this.#bounds[bucket]! },
          value: cumulative,
        });
      }
      values.push({ metricName: `${this.name}_sum`, labels, value: counts[inf + 1]! });
      values.push({ metricName: `${this.name}_count`, labels, value: cumulative });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }

  #counter(name: string, help: string): Collected {
    const inf = this.#bounds.length;
    const values = this.#series.map(({ labels, counts }) => ({
      metricName: name,
      labels,
      value: counts.slice(0, inf + 1).reduce((a, b) => a + b, 0),
    }));
    return { name, help, type: 'counter', values, aggregator: 'sum' };
  }
}
