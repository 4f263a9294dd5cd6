// A histogram for the hot path: each labelled series is a Float64Array, and an observation is a
// bucket search and three increments (no label hashing, no allocation). prom-client's registry
// formats it at scrape time, like its own metrics, through the object shape its registry reads.
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
  readonly #series = new Map<string, { labels: Record<Label, string>; counts: Series }>();

  /** `countName`: also register a counter of the observations under that name (its values are the histogram's counts). */
  constructor(options: { name: string; help: string; labelNames: readonly Label[]; buckets: readonly number[]; registry: Registry; countName?: string; countHelp?: string }) {
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

  /** The series of these label values (in labelNames' order), made on first use; keep it to observe into. */
  series(...values: string[]): Series {
    const key = values.join('\u0000');
    let found = this.#series.get(key);
    if (found === undefined) {
      const labels = Object.fromEntries(this.#labelNames.map((name, i) => [name, values[i] ?? ''])) as Record<Label, string>;
      found = { labels, counts: new Float64Array(this.#bounds.length + 2) };
      this.#series.set(key, found);
    }
    return found.counts;
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
    for (const { labels, counts } of this.#series.values()) {
      let cumulative = 0;
      for (let bucket = 0; bucket <= inf; bucket++) {
        cumulative += counts[bucket]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: bucket === inf ? '+Inf' : this.#bounds[bucket]! }, value: cumulative });
      }
      values.push({ metricName: `${this.name}_sum`, labels, value: counts[inf + 1]! });
      values.push({ metricName: `${this.name}_count`, labels, value: cumulative });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }

  #counter(name: string, help: string): Collected {
    const inf = this.#bounds.length;
    const values = [...this.#series.values()].map(({ labels, counts }) => ({ metricName: name, labels, value: counts.slice(0, inf + 1).reduce((a, b) => a + b, 0) }));
    return { name, help, type: 'counter', values, aggregator: 'sum' };
  }
}
