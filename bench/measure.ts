// One measured run of one contestant: load from the load generator, CPU and memory from /proc.
import { performance } from 'node:perf_hooks';
import { runAutocannon } from './load/autocannon-load.js';
import type { LoadRequest, LoadResult } from './load/plan.js';
import { runWrk } from './load/wrk-load.js';
import { cpuSeconds, peakRss } from './proc-stats.js';

export interface Measurement {
  scenario: string;
  round: number;
  label: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Server CPU time over wall time: 1 is one core fully busy. */
  cpuShare: number;
  cpuMicrosPerRequest: number;
  /** VmHWM after this run, in MB (10^6 bytes). */
  peakRssMB: number;
  requests: number;
  seconds: number;
  unexpected: number;
  errors: number;
}

export interface LoadTool {
  name: 'autocannon' | 'wrk';
  run(load: LoadRequest): Promise<LoadResult>;
}

export function loadTool(name: 'autocannon' | 'wrk', pin: readonly string[]): LoadTool {
  return name === 'wrk' ? { name, run: (load) => runWrk(load, pin) } : { name, run: runAutocannon };
}

export async function measure(tool: LoadTool, pid: number, load: LoadRequest): Promise<{ result: LoadResult; cpu: number; wall: number; rss: number }> {
  const cpuBefore = cpuSeconds(pid) ?? Number.NaN;
  const started = performance.now();
  const result = await tool.run(load);
  const wall = (performance.now() - started) / 1000;
  const cpu = (cpuSeconds(pid) ?? Number.NaN) - cpuBefore;
  return { result, cpu, wall, rss: (peakRss(pid) ?? Number.NaN) / 1e6 };
}
