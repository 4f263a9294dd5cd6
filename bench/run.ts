// `npm run bench`: builds the data, starts every server and the load generator itself, runs the
// scenarios in interleaved rounds, writes bench/results/*.json and rewrites docs/benchmarks.{md,svg,json}.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { baselineRoot, withBaseline } from './baseline.js';
import { DATA_VERSION, dataSet } from './data.js';
import { freshIds } from './load/id-ranges.js';
import { shareOf, type LoadRequest } from './load/plan.js';
import { seedsFor } from './load/seeds.js';
import { describeMachine, gitRevision, hasCommand, hasProc, loadToolVersion } from './machine.js';
import { loadTool, measure, type Measurement, type MeasureTarget } from './measure.js';
import { parseOptions, type Options } from './options.js';
import { postgresData, postgresUnavailable, type PostgresData } from './postgres-data.js';
import { resetPeakRss } from './proc-stats.js';
import { roundOrder } from './round-order.js';
import { textSummary, writeDocs } from './report.js';
import type { RunRecord } from './run-record.js';
import type { Scenario } from './scenario.js';
import { startScript } from './start-flags.js';
import { scenarios as allScenarios } from './scenarios.js';
import { startServer, type RunningServer } from './servers.js';
import { summarize, type ScenarioSummary } from './summarize.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = join(root, 'bench', '.data');
const say = (text: string) => process.stderr.write(`${text}\n`);

/** Server on one core, load generator (and this process) on another, when the machine allows it. */
function pinning(): { server: string[]; load: string[]; note: string } {
  if (cpus().length < 2 || !hasCommand('taskset')) return { server: [], load: [], note: 'not pinned (needs taskset and 2 cores)' };
  execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  return { server: ['taskset', '-c', '0'], load: ['taskset', '-c', '1'], note: 'servers on core 0, load generator on core 1 (taskset)' };
}

async function runScenario(
  scenario: Scenario,
  options: Options,
  pin: ReturnType<typeof pinning>,
  workDir: string,
  postgres?: PostgresData,
): Promise<Measurement[]> {
  const tool = loadTool(options.tool, pin.load);
  const servers = new Map<string, RunningServer>();
  const measurements: Measurement[] = [];
  try {
    for (const spec of scenario.servers) {
      const server = await startServer(spec, root, workDir, pin.server, postgres);
      servers.set(spec.id, server);
      running.add(server);
    }
    for (const server of servers.values()) for (const { pid } of server.instances) if (!resetPeakRss(pid)) peakRssReset = false;
    const runs = new Map<string, number>();
    /** The fastest rate any contestant of this scenario has shown yet (req/s). */
    let fastest = 0;
    for (let round = 1; round <= options.rounds; round++) {
      for (const index of roundOrder(scenario.contestants.length, round)) {
        const contestant = scenario.contestants[index]!;
        const server = servers.get(contestant.server ?? contestant.label)!;
        const target: MeasureTarget = {
          instances: server.instances,
          ...(server.spec.kind === 'plant-store-postgres' && postgres && { databasePids: () => postgres.pids() }),
        };
        // Every run gets fresh ids of its own (bench/load/id-ranges.ts): no run depends on what an earlier one used.
        const load = (seconds: number): LoadRequest => {
          const run = runs.get(contestant.label) ?? 0;
          runs.set(contestant.label, run + 1);
          const plan = contestant.plan(freshIds(index, run, contestant.idsSortFirst));
          return {
            url: server.instances[0]!.url,
            token: server.token,
            tokens: server.tokens,
            connections: options.connections,
            seconds,
            plan,
          };
        };
        const warmup = options.warmupSeconds > 0 ? load(options.warmupSeconds) : undefined;
        const measured = load(options.seconds);
        // The plants both runs will delete, inserted before either starts: in the first round (each contestant runs
        // once a round) enough for 40,000 req/s, then for 1.5 times the fastest rate any contestant has shown yet. Not
        // its own: its cold first round can be much slower than its next (3,845 then 9,746 req/s on a busy 2-core VM),
        // and its deletes then ran out of plants (404s).
        const instances = server.instances.length;
        const seeds = [warmup, measured].flatMap((run) => {
          if (run === undefined) return [];
          const expected = ((round > 1 ? fastest : 40_000) * 1.5 * (Math.max(1, Math.round(run.seconds)) + 1)) / instances;
          return server.instances.flatMap((_, i) => seedsFor(shareOf(run.plan, i), expected, options.connections));
        });
        if (seeds.length > 0) await server.seed(seeds);
        if (warmup) await measure(tool, target, warmup);
        const { result, cpu, databaseCpu, wall, rss } = await measure(tool, target, measured);
        const measurement: Measurement = {
          scenario: scenario.id,
          round,
          label: contestant.label,
          requestsPerSecond: result.requests / result.seconds,
          p50Ms: result.p50Ms,
          p99Ms: result.p99Ms,
          cpuShare: cpu / wall,
          ...(databaseCpu !== undefined && { databaseCpuShare: databaseCpu / wall }),
          cpuMicrosPerRequest: (cpu / result.requests) * 1e6,
          ...(databaseCpu !== undefined && { databaseCpuMicrosPerRequest: (databaseCpu / result.requests) * 1e6 }),
          peakRssMB: rss,
          requests: result.requests,
          seconds: result.seconds,
          unexpected: result.unexpected,
          errors: result.errors,
        };
        fastest = Math.max(fastest, measurement.requestsPerSecond);
        measurements.push(measurement);
        say(
          `  [${scenario.id} ${round}/${options.rounds}] ${contestant.label.padEnd(20)} ${Math.round(measurement.requestsPerSecond).toLocaleString('en').padStart(7)} req/s` +
            `  p50 ${measurement.p50Ms.toFixed(2)} ms  p99 ${measurement.p99Ms.toFixed(2)} ms  cpu ${(measurement.cpuShare * 100).toFixed(0)}%` +
            `  ${measurement.cpuMicrosPerRequest.toFixed(1)} µs/req` +
            (measurement.databaseCpuMicrosPerRequest === undefined
              ? ''
              : `  database ${measurement.databaseCpuMicrosPerRequest.toFixed(1)} µs/req`) +
            (result.unexpected + result.errors > 0 ? `  !! ${result.unexpected} unexpected statuses, ${result.errors} errors` : ''),
        );
      }
    }
  } finally {
    for (const server of servers.values()) {
      await server.stop();
      running.delete(server);
    }
  }
  return measurements;
}

/** Servers up now, and the PostgreSQL data: what a signal must stop before the harness exits. */
const running = new Set<RunningServer>();
let runningPostgres: PostgresData | undefined;
/** False when the kernel refused to reset a server's VmHWM: peaks then include its start-up. */
let peakRssReset = true;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`${signal}: stopping the servers`);
    void Promise.allSettled([...running].map((server) => server.stop())).then(() => {
      runningPostgres?.destroy();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  });
}

const usesPostgres = (scenario: Scenario) => scenario.servers.some((server) => server.kind === 'plant-store-postgres');

async function main(): Promise<void> {
  const started = Date.now();
  const options = parseOptions(process.argv.slice(2), hasCommand('wrk'));
  if (options.render !== undefined) {
    const earlier = JSON.parse(readFileSync(options.render, 'utf8')) as RunRecord;
    say(`rewrote ${writeDocs(root, earlier).join(', ')} from ${options.render}`);
    return;
  }
  const pin = pinning();
  const machine = describeMachine();
  // Before anything runs: the revision measured is the one the run started on.
  const revision = gitRevision(root);
  if (revision.endsWith('+changes'))
    say(`the tree has uncommitted changes: these figures will not be reproducible from ${revision.slice(0, 12)}`);
  if (!hasProc()) say('no /proc: server CPU and memory are not measured');

  const dataStarted = Date.now();
  const big = dataSet(dataDir, 1_000_000);
  const small = dataSet(dataDir, 10_000);
  say(`data: ${big.path}, ${small.path} (${((Date.now() - dataStarted) / 1000).toFixed(1)} s)`);

  // The quick run keeps the PostgreSQL table small: starting and filling the server must fit in its minute.
  const postgresRows = options.quick ? 10_000 : 1_000_000;
  let selected = allScenarios(big, small, postgresRows).filter((scenario) =>
    options.only.length > 0 ? options.only.includes(scenario.id) : !options.quick || scenario.quick,
  );
  if (selected.length === 0) throw new Error(`no scenario matches --only ${options.only.join(',')}`);
  if (options.baseline !== undefined) {
    const baseline = baselineRoot(options.baseline);
    selected = selected.map((scenario) => withBaseline(scenario, baseline));
    say(`baseline: ${baseline} (revision ${gitRevision(baseline).slice(0, 12)}) runs as plant-store@baseline`);
  }
  let postgres: PostgresData | undefined;
  if (selected.some(usesPostgres)) {
    const missing = postgresUnavailable();
    if (missing !== undefined && process.env.CI === 'true') throw new Error(`PostgreSQL scenarios cannot run: ${missing}`);
    if (missing !== undefined) {
      say(`skipping the PostgreSQL scenarios: ${missing}`);
      selected = selected.filter((scenario) => !usesPostgres(scenario));
    } else {
      const pgStarted = Date.now();
      postgres = runningPostgres = await postgresData(postgresRows);
      say(
        `data: PostgreSQL ${postgres.cluster.url.replace(/:[^:@/]*@/, ':***@')}, ${postgresRows.toLocaleString('en')} plants (${((Date.now() - pgStarted) / 1000).toFixed(1)} s)`,
      );
    }
  }
  const workDir = join(dataDir, 'run');
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });

  const summaries: ScenarioSummary[] = [];
  const measurements: Measurement[] = [];
  try {
    for (const scenario of selected) {
      say(`${scenario.id}: ${scenario.title}`);
      const measured = await runScenario(scenario, options, pin, workDir, postgres);
      measurements.push(...measured);
      summaries.push(summarize(scenario, measured));
    }
  } finally {
    postgres?.destroy();
    rmSync(workDir, { recursive: true, force: true });
  }

  const run: RunRecord = {
    date: new Date().toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    revision,
    loadToolVersion: loadToolVersion(options.tool, root),
    dataVersion: DATA_VERSION,
    options,
    machine: { ...machine, loadAfter: loadavg().map((value) => Math.round(value * 100) / 100) },
    pinning: pin.note,
    startCommand: startScript(root),
    peakRssReset,
    durationSeconds: Math.round((Date.now() - started) / 1000),
    summaries,
    measurements,
  };
  const resultsDir = join(root, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const resultsFile = join(resultsDir, `${run.date.replace(/[:.]/g, '-')}${options.quick ? '-quick' : ''}.json`);
  writeFileSync(resultsFile, `${JSON.stringify(run, null, 2)}\n`);
  process.stdout.write(textSummary(run));
  say(`raw results: ${resultsFile}`);
  if (options.writeDocs) say(`rewrote ${writeDocs(root, run).join(', ')}`);
  const broken = measurements.filter((measurement) => measurement.unexpected + measurement.errors > 0);
  if (broken.length > 0) {
    say(`${broken.length} runs had unexpected statuses or errors: the figures above are not trustworthy`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
