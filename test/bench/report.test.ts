// The report names the revision and the command, commits the run's record beside itself, says what
// each server does per request, and never lets a quick or uncommitted run pass for a measurement.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { DataSet } from '../../bench/data.js';
import type { Measurement } from '../../bench/measure.js';
import { parseOptions } from '../../bench/options.js';
import { textSummary, writeDocs } from '../../bench/report.js';
import type { RunRecord } from '../../bench/run-record.js';
import { scenarios } from '../../bench/scenarios.js';
import { summarize } from '../../bench/summarize.js';
import { tempDir } from '../helpers/temp-dir.js';

const data: DataSet = { name: '1m', rows: 1_000_000, path: '/nowhere.db' };
const scenario = scenarios(data, data, 10_000).find((s) => s.id === 'get-random-pages')!;
const measurements: Measurement[] = [1, 2].flatMap((round) =>
  scenario.contestants.map((c, i) => ({
    scenario: scenario.id,
    round,
    label: c.label,
    requestsPerSecond: [1000, 50, 300][i]!,
    p50Ms: 1,
    p99Ms: 2,
    cpuShare: 1,
    cpuMicrosPerRequest: 10,
    peakRssMB: 90,
    requests: 1000,
    seconds: 1,
    unexpected: 0,
    errors: 0,
  })),
);

function record(args: string[], revision: string): RunRecord {
  return {
    date: '2026-11-23T12:00:00.000Z',
    command: `npm run bench -- ${args.join(' ')}`,
    revision,
    loadToolVersion: 'wrk 4.1.0 [epoll]',
    dataVersion: 'v1-schema2',
    options: parseOptions(args, true),
    machine: { cpu: 'Test CPU', cores: 2, memoryGiB: 8, node: 'v24.21.0', kernel: '6.1', loadBefore: [0, 0, 0], loadAfter: [0, 0, 0] },
    pinning: 'not pinned',
    peakRssReset: true,
    durationSeconds: 10,
    summaries: [summarize(scenario, measurements)],
    measurements,
  };
}

const COMMIT = '0123456789abcdef0123456789abcdef01234567';

t.test('a full run: revision, command, the committed record, and what each server does', async (t) => {
  const root = tempDir(t);
  const run = record(['--only', 'get-random-pages'], COMMIT);
  t.same(writeDocs(root, run), ['docs/benchmarks.md', 'docs/benchmarks.svg', 'docs/benchmarks.json']);
  const md = readFileSync(join(root, 'docs', 'benchmarks.md'), 'utf8');
  t.match(md, `on revision \`${COMMIT}\``);
  t.match(md, '```sh\nnpm run bench -- --only get-random-pages\n```');
  t.match(md, `git checkout ${COMMIT} && npm ci && npm run bench -- --only get-random-pages`);
  t.match(md, '[`benchmarks.json`](benchmarks.json)');
  t.match(md, 'wrk 4.1.0');
  t.match(md, 'What each server does per request here:');
  t.match(md, '- **ceiling-pages**: bare Fastify decodes the cursor');
  t.match(md, '| plant-store at least 0.35 × ceiling-pages (req/s) | 0.300 × | **not met** |');
  t.notMatch(md, 'quick run');
  t.notMatch(md, 'cannot be reproduced');
  t.same(JSON.parse(readFileSync(join(root, 'docs', 'benchmarks.json'), 'utf8')), run, 'the whole record, as measured');
});

t.test('a quick run or a tree with changes says so', async (t) => {
  const root = tempDir(t);
  const run = record(['--quick'], `${COMMIT}+changes`);
  writeDocs(root, run);
  const md = readFileSync(join(root, 'docs', 'benchmarks.md'), 'utf8');
  t.match(md, '**This is a `--quick` run**');
  t.match(md, 'not met (quick run: not a measurement of the target)');
  t.match(md, 'these figures cannot be reproduced from a commit');
  t.match(md, `git checkout ${COMMIT} &&`, 'the commit without the +changes mark');
  t.match(textSummary(run), 'not met (quick run: not a measurement of the target)');
  t.match(textSummary(record([], COMMIT)), '-> NOT MET');
});
