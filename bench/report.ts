// Renders a run: a text summary for the terminal, and docs/benchmarks.md with docs/benchmarks.svg.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { chart } from './chart.js';
import type { RunRecord } from './run-record.js';
import { SERVER_ENV } from './servers.js';
import type { ScenarioSummary } from './summarize.js';

const num = (value: number, digits = 0) => (Number.isFinite(value) ? value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a');

function table(summary: ScenarioSummary): string {
  const database = summary.contestants.some((c) => c.databaseCpuShare !== undefined);
  const lines = [
    `| Server | req/s | p50 ms | p99 ms | server CPU |${database ? ' database CPU |' : ''} CPU µs/request | peak RSS MB | non-2xx / errors |`,
    `|---|---:|---:|---:|---:|${database ? '---:|' : ''}---:|---:|---:|`,
    ...summary.contestants.map(
      (c) =>
        `| ${c.label} | ${num(c.requestsPerSecond)} | ${num(c.p50Ms, 2)} | ${num(c.p99Ms, 2)} | ${num(c.cpuShare * 100)}% |` +
        `${database ? ` ${c.databaseCpuShare === undefined ? '–' : `${num(c.databaseCpuShare * 100)}%`} |` : ''}` +
        ` ${num(c.cpuMicrosPerRequest, 1)} | ${num(c.peakRssMB, 1)} | ${c.unexpected} / ${c.errors} |`,
    ),
  ];
  return lines.join('\n');
}

function ratios(summary: ScenarioSummary): string {
  const lines = summary.ratios.map((r) => `- ${r.of} / ${r.to}: **${num(r.median, 2)} ×** req/s (per-round ratios ${num(r.min, 2)} to ${num(r.max, 2)})`);
  const costs = summary.rowCosts.map((c) => `- server CPU per extra row, limit ${c.from} → ${c.to}: **${num(c.microsPerRow, 3)} µs**`);
  const notes = summary.notes.map((note) => `- Note: ${note}`);
  return [...lines, ...costs, ...notes].join('\n');
}

function targets(run: RunRecord): string {
  const rows = run.summaries.flatMap((s) => s.targets.map((t) => `| ${s.title} | ${t.text} | ${t.measured} | ${t.met ? 'met' : '**not met**'} |`));
  if (rows.length === 0) return 'No scenario with a target ran.';
  return ['| Scenario | Target | Measured | |', '|---|---|---|---|', ...rows].join('\n');
}

export function textSummary(run: RunRecord): string {
  const out: string[] = [`\n${run.command}  (${run.machine.cpu}, ${run.machine.cores} cores, node ${run.machine.node}, ${run.durationSeconds} s)\n`];
  for (const summary of run.summaries) {
    out.push(`${summary.title}`);
    for (const c of summary.contestants) {
      out.push(
        `  ${c.label.padEnd(20)} ${num(c.requestsPerSecond).padStart(7)} req/s  p50 ${num(c.p50Ms, 2).padStart(6)} ms  p99 ${num(c.p99Ms, 2).padStart(6)} ms  ` +
          `cpu ${num(c.cpuShare * 100).padStart(3)}%  ${num(c.cpuMicrosPerRequest, 1).padStart(7)} µs/req  rss ${num(c.peakRssMB, 1)} MB`,
      );
    }
    for (const r of summary.ratios) out.push(`  ${r.of} / ${r.to}: ${num(r.median, 2)} x`);
    // Rounds of one second without warm-up say nothing about the targets: the quick run only keeps the harness working.
    const verdict = (met: boolean) => (run.options.quick ? `${met ? 'met' : 'not met'} (quick run: not a measurement of the target)` : met ? 'met' : 'NOT MET');
    for (const t of summary.targets) out.push(`  target: ${t.text}: ${t.measured} -> ${verdict(t.met)}`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}

function markdown(run: RunRecord, resultsFile: string, root: string, findings: string): string {
  const m = run.machine;
  const o = run.options;
  const env = Object.entries(SERVER_ENV).map(([name, value]) => `${name}=${value}`).join(' ');
  return `# Benchmarks

<!-- Written by \`npm run bench\` (bench/run.ts, bench/report.ts): rerun it rather than editing. -->

Measured ${run.date.slice(0, 16).replace('T', ' ')} UTC on revision \`${run.revision}\` with

\`\`\`sh
${run.command}
\`\`\`

**Machine:** ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Linux ${m.kernel}, Node.js ${m.node}. Load average
(1, 5, 15 min) ${m.loadBefore.join(', ')} before the run and ${m.loadAfter.join(', ')} after it: other work on the machine
makes absolute figures noisy; the ratios, measured between servers in the same interleaved rounds, much less so.

**Method:** every scenario starts its servers as real processes and the load generator itself: ${run.pinning}.
Load generator ${o.tool}, ${o.connections} connections; ${o.rounds} rounds of ${o.seconds} s, each after ${o.warmupSeconds} s of warm-up,
the servers taking turns (A B C A B C ...). Figures are medians over the rounds; a ratio is the median of the
per-round ratios. Server CPU comes from \`/proc/<pid>/stat\` (1 = 100% = one core), peak RSS from \`VmHWM\` in
\`/proc/<pid>/status\` (${run.peakRssReset === false ? 'which could not be reset here, so it includes start-up' : "reset when the scenario's servers are up"}; for a server of several processes, their sum). The whole benchmark took ${run.durationSeconds} s${o.quick ? '; this was the short `--quick` run, so the figures are indicative only' : ''}.

**Rate limiting is off for every server:** Plant Store runs with \`RATE_LIMIT_PER_MINUTE=0\`; the references have no limiter.

## The servers

- **plant-store**: this project, \`node dist/src/server.js\` after the build, with \`${env}\` and
  \`DATABASE_PATH\` on its own copy of the generated data. Writes are durable before they are acknowledged:
  WAL, \`synchronous=FULL\`, group commit.
- **ceiling** (\`bench/servers/ceiling.ts\`): bare Fastify answering a fixed, pre-built array of the same 20 plants
  through the same response schema; no auth, no database, no logger. Nothing that does real work can beat it.
- **express-peer** (\`bench/servers/express-peer.ts\`): the way most teams would build it: Express 5,
  express-openapi-validator checking requests and responses against the same \`openapi.yaml\`, better-sqlite3
  and the same token check (SHA-256 hash looked up in the tokens table). WAL with \`synchronous=NORMAL\` and one
  commit per request: it does less for durability than Plant Store (a power cut may lose acknowledged writes).
- **per-request-normal** (\`bench/servers/plant-store-per-request.ts\`): Plant Store itself, same app, routes and
  store, except that each write commits alone, at once, with \`synchronous=NORMAL\`: what group commit is measured against.
- **postgres-1-instance** and **postgres-2-instances**: Plant Store on PostgreSQL (\`DATABASE_URL\`, pool of 10 per
  process), one process or two sharing one database, each instance with its own load generator and half the
  connections (latencies shown are the worse of the two generators'; peak RSS is the sum of the processes). A throwaway PostgreSQL server started by the harness
  (\`scripts/postgres-cluster.ts\`), durable settings (fsync and \`synchronous_commit\` on). With taskset, the Plant Store
  processes share the server core and PostgreSQL shares the load generator's core: on two cores, two instances
  cannot show scaling, only that they stay fast and correct together. Server CPU counts the Plant Store processes;
  database CPU, the PostgreSQL server and its backends.

Data: a SQLite file of 1,000,000 plants (100 users with 10,000 each; the bench user is one of them) and one of
10,000 (that user alone), generated by the harness and cached in \`bench/.data\`; the PostgreSQL scenarios fill
their server with the same plants (\`bench/postgres-data.ts\`) and copy the database for each server. Tokens are
made with the project's own \`createToken\`.

## Targets

${targets(run)}

![Median requests per second per scenario](benchmarks.svg)

${run.summaries.map((s) => `## ${s.title}\n\n${s.about}\n\n${table(s)}\n\n${ratios(s)}`).join('\n\n')}

${findings.trim() === '' ? '' : `## Findings\n\n${findings.trim()}\n\n`}Raw results of this run: \`${relative(root, resultsFile)}\` (not committed).
`;
}

/** Rewrites docs/benchmarks.md and docs/benchmarks.svg; returns the paths written. */
export function writeDocs(root: string, run: RunRecord, resultsFile: string): string[] {
  const docs = join(root, 'docs');
  mkdirSync(docs, { recursive: true });
  const findingsFile = join(root, 'bench', 'findings.md');
  const findings = existsSync(findingsFile) ? readFileSync(findingsFile, 'utf8').replace(/^<!--[^]*?-->\s*/, '') : '';
  const md = join(docs, 'benchmarks.md');
  const svg = join(docs, 'benchmarks.svg');
  writeFileSync(md, markdown(run, resultsFile, root, findings));
  writeFileSync(svg, chart(run.summaries, `Median req/s per scenario, ${run.machine.cores} cores, ${run.options.tool}, ${run.options.connections} connections (${run.date.slice(0, 10)})`));
  return [relative(root, md), relative(root, svg)];
}
