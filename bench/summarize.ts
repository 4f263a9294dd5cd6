// Per-scenario figures from the raw measurements: medians per contestant, medians of per-round
// ratios, and each target's verdict.
import type { Measurement } from './measure.js';
import type { Scenario, Target } from './scenario.js';
import { max, median } from './stats.js';

/** Medians over the rounds of one contestant's measurements (peak RSS: the highest; failures: summed). */
export type ContestantSummary = Pick<
  Measurement,
  | 'label'
  | 'requestsPerSecond'
  | 'p50Ms'
  | 'p99Ms'
  | 'cpuShare'
  | 'cpuMicrosPerRequest'
  | 'databaseCpuShare'
  | 'databaseCpuMicrosPerRequest'
  | 'peakRssMB'
  | 'unexpected'
  | 'errors'
> & { rows?: number };

export interface RatioSummary {
  of: string;
  to: string;
  /** Median of the per-round ratios of requests per second. */
  median: number;
  min: number;
  max: number;
}

export interface TargetResult {
  text: string;
  measured: string;
  met: boolean;
}

export interface ScenarioSummary {
  id: string;
  title: string;
  about: string;
  /** What each server (by label) does for one request in this scenario. */
  does?: Record<string, string>;
  rounds: number;
  contestants: ContestantSummary[];
  ratios: RatioSummary[];
  /** Server CPU per extra row between successive page sizes, in microseconds (page-size scenario). */
  rowCosts: Array<{ from: number; to: number; microsPerRow: number }>;
  targets: TargetResult[];
  /** Things a reader of the figures should know, such as a server that was not saturated. */
  notes: string[];
}

function perRound(measurements: Measurement[], label: string): Map<number, Measurement> {
  return new Map(measurements.filter((m) => m.label === label).map((m) => [m.round, m]));
}

function ratio(measurements: Measurement[], of: string, to: string): RatioSummary {
  const ofRounds = perRound(measurements, of);
  const ratios = [...perRound(measurements, to)].flatMap(([round, other]) => {
    const mine = ofRounds.get(round);
    return mine ? [mine.requestsPerSecond / other.requestsPerSecond] : [];
  });
  return { of, to, median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

function rowCosts(scenario: Scenario, measurements: Measurement[]): ScenarioSummary['rowCosts'] {
  const sized = scenario.contestants.filter((c) => c.rows !== undefined).sort((a, b) => a.rows! - b.rows!);
  return sized.slice(1).map((contestant, i) => {
    const previous = sized[i]!;
    const before = perRound(measurements, previous.label);
    const extra = [...perRound(measurements, contestant.label)].flatMap(([round, m]) => {
      const base = before.get(round);
      return base ? [(m.cpuMicrosPerRequest - base.cpuMicrosPerRequest) / (contestant.rows! - previous.rows!)] : [];
    });
    return { from: previous.rows!, to: contestant.rows!, microsPerRow: median(extra) };
  });
}

function judge(
  target: Target,
  measurements: Measurement[],
  contestants: ContestantSummary[],
  costs: ScenarioSummary['rowCosts'],
): TargetResult {
  const find = (label: string) => contestants.find((c) => c.label === label)!;
  switch (target.kind) {
    case 'ratio': {
      const r = ratio(measurements, target.of, target.to);
      return {
        text: `${target.of} at least ${target.atLeast} × ${target.to} (req/s)`,
        measured: `${r.median.toFixed(3)} ×`,
        met: r.median >= target.atLeast,
      };
    }
    case 'rss': {
      const extra = find(target.of).peakRssMB - find(target.to).peakRssMB;
      return {
        text: `${target.of} peak RSS at most ${target.to}'s + ${target.megabytes} MB`,
        measured: `${extra >= 0 ? '+' : ''}${extra.toFixed(1)} MB`,
        met: extra <= target.megabytes,
      };
    }
    case 'tail': {
      const tails = [...perRound(measurements, target.of).values()].map((m) => m.p99Ms / m.p50Ms);
      const value = median(tails);
      return { text: `${target.of} p99 at most ${target.atMost} × p50`, measured: `${value.toFixed(2)} ×`, met: value <= target.atMost };
    }
    case 'cpu': {
      // Per round, like the req/s ratios: both servers ran under the same load on the machine then.
      const others = perRound(measurements, target.to);
      const ratios = [...perRound(measurements, target.of)].flatMap(([round, m]) => {
        const other = others.get(round);
        return other ? [m.cpuMicrosPerRequest / other.cpuMicrosPerRequest] : [];
      });
      const value = median(ratios);
      return {
        text: `${target.of} server CPU per request at most ${target.atMost} × ${target.to}'s`,
        measured: `${value.toFixed(2)} × (${find(target.of).cpuMicrosPerRequest.toFixed(1)} against ${find(target.to).cpuMicrosPerRequest.toFixed(1)} µs)`,
        met: value <= target.atMost,
      };
    }
    case 'row-cost': {
      const values = costs.map((cost) => cost.microsPerRow);
      const spread = max(values) / Math.min(...values);
      return {
        text: `server CPU per extra row varies at most ${target.atMost} × across page sizes`,
        measured: `${costs.map((cost) => `${cost.from}→${cost.to}: ${cost.microsPerRow.toFixed(2)} µs`).join(', ')} (${spread.toFixed(2)} ×)`,
        met: spread <= target.atMost && Math.min(...values) > 0,
      };
    }
  }
}

export function summarize(scenario: Scenario, measurements: Measurement[]): ScenarioSummary {
  const contestants = scenario.contestants.map((contestant): ContestantSummary => {
    const mine = measurements.filter((m) => m.label === contestant.label);
    const pick = (key: keyof Measurement) => median(mine.map((m) => m[key] as number));
    return {
      label: contestant.label,
      ...(contestant.rows !== undefined && { rows: contestant.rows }),
      requestsPerSecond: pick('requestsPerSecond'),
      p50Ms: pick('p50Ms'),
      p99Ms: pick('p99Ms'),
      cpuShare: pick('cpuShare'),
      cpuMicrosPerRequest: pick('cpuMicrosPerRequest'),
      ...(mine.some((m) => m.databaseCpuShare !== undefined) && { databaseCpuShare: pick('databaseCpuShare') }),
      ...(mine.some((m) => m.databaseCpuMicrosPerRequest !== undefined) && {
        databaseCpuMicrosPerRequest: pick('databaseCpuMicrosPerRequest'),
      }),
      peakRssMB: max(mine.map((m) => m.peakRssMB)),
      unexpected: mine.reduce((sum, m) => sum + m.unexpected, 0),
      errors: mine.reduce((sum, m) => sum + m.errors, 0),
    };
  });
  const ours = scenario.ours;
  const ratios =
    ours === undefined ? [] : scenario.contestants.filter((c) => c.label !== ours).map((c) => ratio(measurements, ours, c.label));
  const costs = rowCosts(scenario, measurements);
  const notes = contestants
    .filter((c) => c.cpuShare < 0.85)
    .map(
      (c) =>
        `${c.label} kept its core ${Math.round(c.cpuShare * 100)}% busy: its requests per second were bounded by something else ` +
        '(the load generator, waiting for the disk to sync, or other work on the machine taking its core), so a ratio against it understates or overstates the difference in CPU cost; compare CPU µs/request too.',
    );
  return {
    id: scenario.id,
    title: scenario.title,
    about: scenario.about,
    ...(scenario.does !== undefined && { does: scenario.does }),
    rounds: max(measurements.map((m) => m.round)),
    contestants,
    ratios,
    rowCosts: scenario.targets.some((t) => t.kind === 'row-cost') ? costs : [],
    targets: scenario.targets.map((target) => judge(target, measurements, contestants, costs)),
    notes,
  };
}
