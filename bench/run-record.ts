// What one run of the harness records: written to bench/results/*.json and rendered into docs.
import type { Machine } from './machine.js';
import type { Measurement } from './measure.js';
import type { Options } from './options.js';
import type { ScenarioSummary } from './summarize.js';

export interface RunRecord {
  date: string;
  /** As typed: `npm run bench -- ...`. */
  command: string;
  /** The full commit measured; "+changes" when the tree (docs aside) differed from it. */
  revision: string;
  /** The load generator's own version line (absent in older records). */
  loadToolVersion?: string;
  /** The generated data's version (bench/data.ts; absent in older records). */
  dataVersion?: string;
  options: Options;
  machine: Machine & { loadAfter: number[] };
  pinning: string;
  /** How Plant Store was started: `npm start`'s command (absent in older records, which ran `node dist/src/server.js`). */
  startCommand?: string;
  /** VmHWM was reset for every server once it was up (false or absent in older records: peaks may include start-up). */
  peakRssReset?: boolean;
  durationSeconds: number;
  summaries: ScenarioSummary[];
  measurements: Measurement[];
}
