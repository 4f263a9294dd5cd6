// Overload (issue 31): 1,000 connections against one Plant Store on the benchmark's 1,000,000-row file,
// with its default load-shedding bounds. Prints how long an answered request waited at most, how many
// were shed (503) or failed, and memory at the peak against idle. Run: npm run bench:overload [-- seconds path]
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { dataSet } from './data.js';
import { peakRss, resetPeakRss } from './proc-stats.js';
import { startServer } from './servers.js';
import { percentile } from './stats.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const seconds = Number(process.argv[2] ?? 20);
const path = process.argv[3] ?? '/plants?limit=20';
const rssMB = (pid: number) => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

const data = dataSet(join(root, 'bench', '.data'), 1_000_000);
const workDir = join(root, 'bench', '.data', 'overload');
mkdirSync(workDir, { recursive: true });
const server = await startServer({ id: 'plant-store', kind: 'plant-store', data }, root, workDir, []);
try {
  const { pid, url } = server.instances[0]!;
  await sleep(2000);
  const idle = rssMB(pid);
  resetPeakRss(pid);
  const times: number[] = [];
  const statuses = new Map<number, number>();
  // autocannon times each answer on its own event loop: a stall there (it opens 1,000 connections in one
  // go, and shares the machine) is added to the answers it reads meanwhile, so the figures say how long.
  const ownDelay = monitorEventLoopDelay({ resolution: 10 });
  ownDelay.enable();
  const instance = autocannon({
    url: url + path,
    connections: 1000,
    duration: seconds,
    headers: { authorization: `Bearer ${server.token}` },
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    times.push(ms);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  const result = await instance;
  ownDelay.disable();
  times.sort((a, b) => a - b);
  const figures = {
    command: `npm run bench:overload -- ${seconds} '${path}'`,
    connections: 1000,
    seconds,
    answered: times.length,
    statuses: Object.fromEntries(statuses),
    errors: result.errors,
    timeouts: result.timeouts,
    p50Ms: percentile(times, 0.5),
    p99Ms: percentile(times, 0.99),
    maxMs: times.at(-1),
    loadGeneratorStallMaxMs: Math.round(ownDelay.max / 1e6),
    idleRssMB: Math.round(idle),
    peakRssMB: Math.round((peakRss(pid) ?? 0) / 1024 / 1024),
  };
  console.log(JSON.stringify(figures, null, 2));
} finally {
  await server.stop();
  rmSync(workDir, { recursive: true, force: true });
}
