// `--baseline <checkout>`: Plant Store as another built checkout has it, run beside this one in the same
// rounds, so that a change to the request path is judged against a known revision on the same machine.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Scenario } from './scenario.js';

export const BASELINE = 'plant-store@baseline';

/** Refuses a folder that is no built Plant Store checkout, naming what is missing. */
export function baselineRoot(folder: string): string {
  const root = resolve(folder);
  const entry = join(root, 'dist', 'src', 'server.js');
  if (!existsSync(entry)) throw new Error(`--baseline ${folder}: no ${entry}; build that checkout first (npm ci && npm run build)`);
  return root;
}

/**
 * The scenario with the baseline beside its `plant-store`: the same data, users and requests, its own
 * process started from `root` with that checkout's start flags. Scenarios without a plain plant-store are unchanged.
 */
export function withBaseline(scenario: Scenario, root: string): Scenario {
  const server = scenario.servers.find((spec) => spec.id === 'plant-store' && spec.kind === 'plant-store');
  const contestant = scenario.contestants.find((c) => c.label === 'plant-store' && (c.server ?? c.label) === 'plant-store');
  if (server === undefined || contestant === undefined) return scenario;
  return {
    ...scenario,
    servers: [...scenario.servers, { ...server, id: BASELINE, root }],
    contestants: [...scenario.contestants, { ...contestant, label: BASELINE, server: BASELINE }],
    ...(scenario.does !== undefined && { does: { ...scenario.does, [BASELINE]: `the same, as built in ${root}` } }),
    targets: [...scenario.targets, { kind: 'ratio', of: 'plant-store', to: BASELINE, atLeast: 1 }],
  };
}
