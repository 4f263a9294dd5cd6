// What a scenario is: its servers, its contestants and their request plans, and the targets its figures are held to.
import type { RequestPlan } from './load/plan.js';
import type { ServerSpec } from './servers.js';

export interface Contestant {
  /** Its name in tables and ratios; also the id of the server it runs on unless `server` says otherwise. */
  label: string;
  server?: string;
  /** `ids`: where this run's fresh ids start and which way they count (bench/load/id-ranges.ts). */
  plan: (ids: { firstId: number; step: 1 | -1 }) => RequestPlan;
  /** Fresh ids below every existing one (negative, counting down), so each new plant lands on the first page. */
  idsSortFirst?: boolean;
  /** Plants in each answer, for the cost per row. */
  rows?: number;
}

export type Target =
  /** Median of the per-round ratios of requests per second. */
  | { kind: 'ratio'; of: string; to: string; atLeast: number }
  /** Peak RSS of `of` at most `megabytes` above that of `to`. */
  | { kind: 'rss'; of: string; to: string; megabytes: number }
  /** Median over rounds of p99 / p50. */
  | { kind: 'tail'; of: string; atMost: number }
  /** Median of the per-round ratios of server CPU per request. */
  | { kind: 'cpu'; of: string; to: string; atMost: number }
  /** Server CPU per extra row, between successive contestants (ordered by rows), varies at most by this factor. */
  | { kind: 'row-cost'; atMost: number };

export interface Scenario {
  id: string;
  title: string;
  about: string;
  /** Part of `--quick`. */
  quick: boolean;
  servers: ServerSpec[];
  contestants: Contestant[];
  /** What each server (by contestant label) does for one request here, for the report. */
  does?: Record<string, string>;
  /** Whose ratios to everyone else the report shows. */
  ours?: string;
  targets: Target[];
}
