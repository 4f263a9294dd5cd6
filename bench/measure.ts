// One measured run of one contestant: load from the load generator (one per server instance),
// CPU and memory from /proc.
import { performance } from 'node:perf_hooks';
import { runAutocannon } from './load/autocannon-load.js';
import { shareOf, type LoadRequest, type LoadResult } from './load/plan.js';
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
  /** CPU time of the database server's processes over wall time (PostgreSQL scenarios only). */
  databaseCpuShare?: number;
  /** CPU time of the database server's processes per request, in microseconds (PostgreSQL scenarios only). */
  databaseCpuMicrosPerRequest?: number;
  /** VmHWM after this run, in MB (10^6 bytes); summed over the instances of a server. */
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

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const cpuOf = (pids: number[]) => sum(pids.map((pid) => cpuSeconds(pid) ?? Number.NaN));

/** One load generator's results, or several run side by side, as one: latencies are the worst generator's. */
function combine(results: LoadResult[]): LoadResult {
  if (results.length === 1) return results[0]!;
  return {
    requests: sum(results.map((r) => r.requests)),
    seconds: Math.max(...results.map((r) => r.seconds)),
    unexpected: sum(results.map((r) => r.unexpected)),
    errors: sum(results.map((r) => r.errors)),
    p50Ms: Math.max(...results.map((r) => r.p50Ms)),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
  };
}

export interface MeasureTarget {
  /** Server processes: each gets its own load generator with an equal share of the connections. */
  instances: Array<{ pid: number; url: string }>;
  /** The database server's processes, whose CPU is reported apart. */
  databasePids?: () => number[];
}

export async function measure(
  tool: LoadTool,
  { instances, databasePids }: MeasureTarget,
  load: LoadRequest,
): Promise<{ result: LoadResult; cpu: number; databaseCpu?: number; wall: number; rss: number }> {
  const pids = instances.map((instance) => instance.pid);
  const cpuBefore = cpuOf(pids);
  const databaseBefore = new Map((databasePids?.() ?? []).map((pid) => [pid, cpuSeconds(pid) ?? 0]));
  const started = performance.now();
  const connections = Math.max(1, Math.round(load.connections / instances.length));
  const results = await Promise.all(
    instances.map((instance, i) => tool.run({ ...load, url: instance.url, connections, plan: shareOf(load.plan, i) })),
  );
  const wall = (performance.now() - started) / 1000;
  const cpu = cpuOf(pids) - cpuBefore;
  // A database process that started during the run used all its CPU time in it.
  const databaseCpu = databasePids && sum(databasePids().map((pid) => (cpuSeconds(pid) ?? 0) - (databaseBefore.get(pid) ?? 0)));
  const rss = sum(pids.map((pid) => peakRss(pid) ?? Number.NaN)) / 1e6;
  return { result: combine(results), cpu, ...(databaseCpu !== undefined && { databaseCpu }), wall, rss };
}
