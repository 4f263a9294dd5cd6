// A benchmark measurement for the harness's tests: every figure plausible, the ones a test is about given.
import type { Measurement } from '../../bench/measure.js';

export function measurement(
  scenario: string,
  label: string,
  round: number,
  requestsPerSecond: number,
  extra: Partial<Measurement> = {},
): Measurement {
  return {
    scenario,
    round,
    label,
    requestsPerSecond,
    p50Ms: 1,
    p99Ms: 2,
    cpuShare: 1,
    cpuMicrosPerRequest: 1e6 / requestsPerSecond,
    peakRssMB: 100,
    requests: requestsPerSecond,
    seconds: 1,
    unexpected: 0,
    errors: 0,
    ...extra,
  };
}
