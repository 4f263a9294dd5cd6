// Renders a run: a text summary for the terminal, and docs/benchmarks.md with docs/benchmarks.svg
// and docs/benchmarks.json (the run's whole record, committed beside the page it backs).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { chart } from './chart.js';
import type { RunRecord } from './run-record.js';
import { SERVER_ENV } from './servers.js';
import type { ScenarioSummary } from './summarize.js';

const num = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';

function table(summary: ScenarioSummary): string {
  const database = summary.contestants.some((c) => c.databaseCpuShare !== undefined);
  const lines = [
    `| Server | req/s | p50 ms | p99 ms | server CPU |${database ? ' database CPU |' : ''} CPU µs/request |${database ? ' database CPU µs/request |' : ''} peak RSS MB | non-2xx / errors |`,
    `|---|---:|---:|---:|---:|${database ? '---:|' : ''}---:|${database ? '---:|' : ''}---:|---:|`,
    ...summary.contestants.map(
      (c) =>
        `| ${c.label} | ${num(c.requestsPerSecond)} | ${num(c.p50Ms, 2)} | ${num(c.p99Ms, 2)} | ${num(c.cpuShare * 100)}% |` +
        (database ? ` ${c.databaseCpuShare === undefined ? '–' : `${num(c.databaseCpuShare * 100)}%`} |` : '') +
        ` ${num(c.cpuMicrosPerRequest, 1)} |` +
        (database ? ` ${c.databaseCpuMicrosPerRequest === undefined ? '–' : num(c.databaseCpuMicrosPerRequest, 1)} |` : '') +
        ` ${num(c.peakRssMB, 1)} | ${c.unexpected} / ${c.errors} |`,
    ),
  ];
  return lines.join('\n');
}

function does(summary: ScenarioSummary): string {
  const entries = Object.entries(summary.does ?? {});
  if (entries.length === 0) return '';
  return `What each server does per request here:\n\n${entries.map(([label, text]) => `- **${label}**: ${text}.`).join('\n')}\n\n`;
}

/** A contestant's server CPU per request, for the ratio lines: the cost behind each throughput ratio. */
function cpuOf(summary: ScenarioSummary, label: string): string {
  const contestant = summary.contestants.find((c) => c.label === label);
  return contestant === undefined ? 'n/a' : num(contestant.cpuMicrosPerRequest, 1);
}

function ratios(summary: ScenarioSummary): string {
  const lines = summary.ratios.map(
    (r) =>
      `- ${r.of} / ${r.to}: **${num(r.median, 2)} ×** req/s (per-round ratios ${num(r.min, 2)} to ${num(r.max, 2)}); ` +
      `server CPU ${cpuOf(summary, r.of)} against ${cpuOf(summary, r.to)} µs/request`,
  );
  const costs = summary.rowCosts.map((c) => `- server CPU per extra row, limit ${c.from} → ${c.to}: **${num(c.microsPerRow, 3)} µs**`);
  const notes = summary.notes.map((note) => `- Note: ${note}`);
  return [...lines, ...costs, ...notes].join('\n');
}

/** A verdict; a quick run (rounds of one second, no warm-up) measures no target, and says so. */
const verdict = (run: RunRecord, met: boolean, strong: (text: string) => string) =>
  run.options.quick ? `${met ? 'met' : 'not met'} (quick run: not a measurement of the target)` : met ? 'met' : strong('not met');

function targets(run: RunRecord): string {
  const rows = run.summaries.flatMap((s) =>
    s.targets.map((t) => `| ${s.title} | ${t.text} | ${t.measured} | ${verdict(run, t.met, (text) => `**${text}**`)} |`),
  );
  if (rows.length === 0) return 'No scenario with a target ran.';
  return ['| Scenario | Target | Measured | |', '|---|---|---|---|', ...rows].join('\n');
}

export function textSummary(run: RunRecord): string {
  const out: string[] = [
    `\n${run.command}  (${run.machine.cpu}, ${run.machine.cores} cores, node ${run.machine.node}, ${run.durationSeconds} s)\n`,
  ];
  for (const summary of run.summaries) {
    out.push(summary.title);
    for (const c of summary.contestants) {
      out.push(
        `  ${c.label.padEnd(20)} ${num(c.requestsPerSecond).padStart(7)} req/s  p50 ${num(c.p50Ms, 2).padStart(6)} ms  p99 ${num(c.p99Ms, 2).padStart(6)} ms  ` +
          `cpu ${num(c.cpuShare * 100).padStart(3)}%  ${num(c.cpuMicrosPerRequest, 1).padStart(7)} µs/req  ` +
          (c.databaseCpuMicrosPerRequest === undefined ? '' : `database ${num(c.databaseCpuMicrosPerRequest, 1)} µs/req  `) +
          `rss ${num(c.peakRssMB, 1)} MB`,
      );
    }
    for (const r of summary.ratios)
      out.push(`  ${r.of} / ${r.to}: ${num(r.median, 2)} x  (cpu ${cpuOf(summary, r.of)} against ${cpuOf(summary, r.to)} µs/req)`);
    // Rounds of one second without warm-up say nothing about the targets: the quick run only keeps the harness working.
    for (const t of summary.targets) out.push(`  target: ${t.text}: ${t.measured} -> ${verdict(run, t.met, (text) => text.toUpperCase())}`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}

/** How to run this measurement again, and whether a commit can. */
function reproduce(run: RunRecord): string {
  const dirty = run.revision.endsWith('+changes');
  const commit = run.revision.replace(/\+changes$/, '');
  const lines = [
    `Measured ${run.date.slice(0, 16).replace('T', ' ')} UTC on revision \`${run.revision}\` with`,
    '',
    '```sh',
    run.command,
    '```',
    '',
    `Every figure on this page is in [\`benchmarks.json\`](benchmarks.json), the run's whole record (revision, command, options, machine,`,
    `Node.js version, load generator${run.loadToolVersion ? ` (\`${run.loadToolVersion}\`)` : ''}, each round's measurements), committed with this page. To measure again:`,
    `\`git checkout ${commit} && npm ci && ${run.command}\` (on Node.js ${run.machine.node}); to rewrite this page from the record alone,`,
    '`npm run bench -- --render docs/benchmarks.json`.',
  ];
  if (dirty)
    lines.push('', '**The tree had uncommitted changes when this was measured: these figures cannot be reproduced from a commit.**');
  if (run.options.quick) {
    const o = run.options;
    lines.push(
      '',
      `**This is a \`--quick\` run** (${o.rounds} rounds of ${o.seconds} s, ${o.warmupSeconds} s of warm-up): it shows the harness works; its figures are indicative`,
      'only and its verdicts measure no target. Figures that count come from a full run (`npm run bench`) on a quiet machine.',
    );
  }
  return lines.join('\n');
}

function markdown(run: RunRecord): string {
  const m = run.machine;
  const o = run.options;
  const env = Object.entries(SERVER_ENV)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  return `# Benchmarks

<!-- Written by \`npm run bench\` (bench/run.ts, bench/report.ts): rerun it rather than editing. -->

${reproduce(run)}

**Machine:** ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Linux ${m.kernel}, Node.js ${m.node}. Load average
(1, 5, 15 min) ${m.loadBefore.join(', ')} before the run and ${m.loadAfter.join(', ')} after it: other work on the machine
makes absolute figures noisy; the ratios, measured between servers in the same interleaved rounds, much less so.

**Method:** every scenario starts its servers as real processes and the load generator itself: ${run.pinning}.
Load generator ${o.tool}, ${o.connections} connections; ${o.rounds} rounds of ${o.seconds} s, each after ${o.warmupSeconds} s of warm-up,
the servers taking turns in a balanced order (a Williams design, \`bench/round-order.ts\`: A B D C, B C A D, ... each server
runs right after every other one equally often). Figures are medians over the rounds; a ratio is the median of the
per-round ratios. Server CPU comes from \`/proc/<pid>/stat\` (1 = 100% = one core), peak RSS from \`VmHWM\` in
\`/proc/<pid>/status\` (${run.peakRssReset === false ? 'which could not be reset here, so it includes start-up' : "reset when the scenario's servers are up"}; for a server of several processes, their sum). The whole benchmark took ${run.durationSeconds} s.

**Rate limiting is off for every server:** Plant Store runs with \`RATE_LIMIT_PER_MINUTE=0\`; the references have no limiter.

## The servers

- **plant-store**: this project as \`npm start\` runs it, \`${run.startCommand ?? 'node dist/src/server.js'}\` after the build, with \`${env}\` and
  \`DATABASE_PATH\` on its own copy of the generated data. Writes are durable before they are acknowledged:
  WAL, group commit, each commit's WAL synced to disk (\`fdatasync\`, off the event loop) before its writes are answered.
- **ceiling** (\`bench/servers/ceiling-app.ts\`): bare Fastify answering each call with a constant of the right shape,
  status and headers: \`GET /plants\` the bench user's first 20 plants as pre-built JSON text with a constant
  \`Link: </plants?limit=20&cursor=...>; rel="next"\`, whatever the cursor; \`POST /plants\` a constant plant (after Fastify
  parsed the body); \`DELETE /plants/{id}\` 204. No auth, validation, database, serialization or logger: the least any
  server can do to answer these calls. It is the reference of the first-page GET (where Plant Store sends a cached page,
  also pre-built text) and of the realistic mix.
- **ceiling-pages** (\`bench/servers/ceiling-pages-app.ts\`): bare Fastify building each page at a cursor from memory: the
  cursor decoded with Plant Store's codec, the 20 plants after it from an array of the bench user's plants, serialized
  through the same response schema, and the Link to the next page; the same body and Link Plant Store answers. No auth,
  validation or database. It is the reference of the random-cursor GET, where no answer can come from a cache.
- **express-peer** (\`bench/servers/express-peer-app.ts\`): the way most teams would build it: Express 5,
  express-openapi-validator checking requests and responses against the same \`openapi.yaml\`, better-sqlite3
  and the same token check (SHA-256 hash looked up in the tokens table). Ids are exact int64, as the contract says: the
  create body's id read from its text with lossless-json, path ids and cursors with \`BigInt\`. WAL with
  \`synchronous=NORMAL\` and one commit per request: it does less for durability than Plant Store (a power cut may
  lose acknowledged writes).
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
10,000 (that user alone), generated by the harness and cached in \`bench/.data\`${run.dataVersion ? ` (data version \`${run.dataVersion}\`)` : ''}; the PostgreSQL scenarios fill
their server with the same plants (\`bench/postgres-data.ts\`) and copy the database for each server. Each server gets its
own copy, with tokens made by the project's own \`createToken\` (the bench user's; in the realistic mix one for each of its
users). Every run of a load generator uses fresh ids of its own; the plants a run deletes are inserted before it.

## How to read these figures

- **Ratios, not absolute figures, are what count.** Every scenario runs its servers side by side in interleaved
  rounds on one machine, so a ratio between two servers of one run holds however busy the machine was; absolute
  req/s move with the machine. A target is judged on the median of the per-round ratios, and a noisy ratio on the
  median of a day's full runs, never on one run.
- **The ceiling is the least any server can do** (bare Fastify sending a constant or a page built from memory): a ratio
  of 0.75 to it means Plant Store's auth, validation, store, serialization, request log and security headers cost a
  quarter of the answers the machine could send. **CPU µs/request** is the server process's CPU time per answered
  request (user + system, from \`/proc\`): it is the figure to compare when a change adds work to the request path.
- **express-peer** is the way most teams would build this service (Express with a validating middleware): it says how
  far the ordinary build is from this one.
- A \`--quick\` run keeps the harness working; its verdicts measure nothing.
- How these figures came to be, run by run, with profiles and A/B comparisons, is in
  [\`bench/findings.md\`](../bench/findings.md).

## Targets

${targets(run)}

![Median requests per second per scenario](benchmarks.svg)

${run.summaries.map((s) => `## ${s.title}\n\n${s.about}\n\n${does(s)}${table(s)}\n\n${ratios(s)}`).join('\n\n')}
`;
}

/** Rewrites docs/benchmarks.md, docs/benchmarks.svg and docs/benchmarks.json from a run; returns the paths written. */
export function writeDocs(root: string, run: RunRecord): string[] {
  const docs = join(root, 'docs');
  mkdirSync(docs, { recursive: true });
  const md = join(docs, 'benchmarks.md');
  const svg = join(docs, 'benchmarks.svg');
  const record = join(docs, 'benchmarks.json');
  writeFileSync(md, markdown(run));
  writeFileSync(
    svg,
    chart(
      run.summaries,
      `Median req/s per scenario, ${run.machine.cores} cores, ${run.options.tool}, ${run.options.connections} connections (${run.date.slice(0, 10)})`,
    ),
  );
  writeFileSync(record, `${JSON.stringify(run, null, 2)}\n`);
  return [relative(root, md), relative(root, svg), relative(root, record)];
}
