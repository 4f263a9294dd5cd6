// What one run of the harness records: written to bench/results/*.json and rendered into docs.
import type { Machine } from './machine.js';
import type { Measurement } from './measure.js';
import type { Options } from './options.js';
import type { ScenarioSummary } from './summarize.js';

export interface RunRecord {
  date: string;
  command: string;
  revision: string;
  options: Options;
  machine: Machine & { loadAfter: number[] };
  pinning: string;
  /** VmHWM was reset for every server once it was up (false or absent in older records: peaks may include start-up). */
  peakRssReset?: boolean;
  durationSeconds: number;
  summaries: ScenarioSummary[];
  measurements: Measurement[];
}
