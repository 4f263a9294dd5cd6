// Another process holds the SQLite write lock: health and reads keep answering at once, writes wait
// without blocking the event loop and then commit, or answer 503 with Retry-After past WRITE_LOCK_TIMEOUT_MS.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { bearer, fetchChecked, tempDir, type Reply } from '../helpers/app.js';
import { listAll } from '../helpers/load.js';
import { projectRoot } from '../helpers/paths.js';
import { runCli, startServer } from '../helpers/process.js';
import { until } from '../helpers/until.js';

/** What the issue measured: a second process (the CLI, another instance) in one write transaction for 8 s. */
const HOLD_MS = 8000;

// Takes the write lock, writes a plant of its own inside it, says "locked"; commits when its stdin
// ends, says "released".
const HOLDER = `const D = require('better-sqlite3'); const db = new D(process.argv[1]);
  db.exec('BEGIN IMMEDIATE'); db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', 1000, 'held')").run();
  process.stdout.write('locked\\n');
  const release = () => { db.exec('COMMIT'); db.close(); process.stdout.write('released\\n'); process.exit(0); };
  process.stdin.on('end', release).resume();`;

function holdLock(t: Parameters<typeof tempDir>[0], path: string) {
  const child = spawn(process.execPath, ['-e', HOLDER, path], { cwd: projectRoot, stdio: ['pipe', 'pipe', 'inherit'] });
  t.teardown(() => void child.kill('SIGKILL'));
  let said = '';
  child.stdout.on('data', (chunk) => (said += String(chunk)));
  return {
    locked: () => until(() => said.includes('locked'), 10_000, 'the lock holder taking the lock'),
    isReleased: () => said.includes('released'),
    release: () => child.stdin.end(),
  };
}

async function setup(t: Parameters<typeof tempDir>[0], lockTimeoutMs: number) {
  const path = join(tempDir(t), 'plants.db');
  const env = {
    DATABASE_PATH: path,
    DATABASE_URL: '',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
    WRITE_LOCK_TIMEOUT_MS: String(lockTimeoutMs),
  };
  const token = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
  const server = await startServer(t, env);
  const headers = { ...bearer(token), 'content-type': 'application/json' };
  return { path, token, server, headers };
}

/**
 * Probes health, readiness and a read `rounds` times, one after the other, and says how long they took
 * (for the log only: on a shared machine the slowest answer is set by the scheduler, not by the lock).
 */
async function probe(t: Parameters<typeof tempDir>[0], base: string, token: string, rounds: number) {
  const all: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const path of ['/healthz', '/readyz', '/plants']) {
      const started = performance.now();
      const reply = await fetch(base + path, { headers: bearer(token) });
      await reply.arrayBuffer();
      all.push(performance.now() - started);
      if (reply.status !== 200) t.fail(`${path} answered ${reply.status}`);
    }
  }
  all.sort((a, b) => a - b);
  const percentile = (p: number) => all[Math.min(all.length - 1, Math.floor(all.length * p))]!.toFixed(1);
  return `median ${percentile(0.5)} ms, p99 ${percentile(0.99)} ms, slowest ${all.at(-1)!.toFixed(1)} ms`;
}

const PROBE_ROUNDS = 20;

t.test(`a write lock held by another process (at least ${HOLD_MS / 1000} s): reads answer meanwhile, writes commit after it`, async (t) => {
  const { path, token, server, headers } = await setup(t, 30_000);
  t.equal((await fetchChecked(t, server.url, '/plants', { method: 'POST', headers, body: '{"id":1,"name":"before"}' })).status, 200);
  t.comment(`without a lock, ${PROBE_ROUNDS} probe rounds: ${await probe(t, server.url, token, PROBE_ROUNDS)}`);

  // Told by the order of events, not by a clock: every probe is answered while the holder still has the
  // lock (it releases only when told, after them) and while every write still waits; no write is
  // answered before the release. How long a read takes is the benchmark's to measure (docs/benchmarks.md).
  const holder = holdLock(t, path);
  await holder.locked();
  const lockedAt = performance.now();
  let released = false;
  const early: number[] = [];
  const settled: number[] = [];
  const writes: Array<Promise<Reply>> = [
    ...Array.from({ length: 10 }, (_, i) =>
      fetchChecked(t, server.url, '/plants', { method: 'POST', headers, body: `{"id":${i + 2},"name":"waited"}` }),
    ),
    fetchChecked(t, server.url, '/plants/1', { method: 'DELETE', headers: bearer(token) }),
  ].map((write, i) =>
    write.finally(() => {
      settled.push(performance.now() - lockedAt);
      if (!released) early.push(i);
    }),
  );

  const spread = await probe(t, server.url, token, PROBE_ROUNDS);
  t.equal(settled.length, 0, `all ${PROBE_ROUNDS} probe rounds answered 200 while every write waited for the lock`);
  t.notOk(holder.isReleased(), 'and while the other process held it');
  // The hold the issue measured: a write waits that long and still commits (WRITE_LOCK_TIMEOUT_MS 30 s).
  const heldFor = performance.now() - lockedAt;
  if (heldFor < HOLD_MS) await new Promise((resolve) => setTimeout(resolve, HOLD_MS - heldFor));
  released = true;
  holder.release();
  const replies = await Promise.all(writes);
  await until(holder.isReleased, 10_000, 'the lock holder saying it released the lock');
  t.comment(`probes while the lock was held: ${spread}`);
  t.comment(`writes answered ${Math.round(Math.min(...settled))} to ${Math.round(Math.max(...settled))} ms after the lock was taken`);
  t.same(early, [], 'no write was answered before the lock was released');
  t.same(
    replies.map((reply) => reply.status),
    [...Array(10).fill(200), 204],
    'every write waited and then committed: no 500, no 503',
  );
  const names = (await listAll(server.url, token)).map((plant) => plant.name);
  t.same(
    names.sort(),
    ['held', ...Array(10).fill('waited')].sort(),
    "the holder's plant and every acknowledged write are there, the deleted one is not",
  );
});

t.test('past WRITE_LOCK_TIMEOUT_MS a write answers 503 with Retry-After and changes nothing', async (t) => {
  const { path, token, server, headers } = await setup(t, 500);
  const holder = holdLock(t, path);
  await holder.locked();
  let log = '';
  server.child.stdout!.on('data', (chunk) => (log += String(chunk)));
  const started = performance.now();
  const [created, deleted] = await Promise.all([
    fetchChecked(t, server.url, '/plants', { method: 'POST', headers, body: '{"id":7,"name":"refused"}' }),
    fetchChecked(t, server.url, '/plants/1000', { method: 'DELETE', headers: bearer(token) }),
  ]);
  const waited = performance.now() - started;
  for (const reply of [created, deleted]) {
    t.equal(reply.status, 503);
    t.match(reply.headers['retry-after'], /^[1-9]\d*$/, 'Retry-After in seconds');
    t.match(reply.json().message, /another process is writing/i);
  }
  // A lower bound only: the write waited its bound (500 ms). That it did not wait for the release is an
  // order of events: the holder releases only when told, below.
  t.ok(waited >= 450, `answered after ${Math.round(waited)} ms (bound 500 ms), while the lock was still held`);
  t.notOk(holder.isReleased(), 'the lock is still held: the 503 did not wait for its release');
  const health = await fetchChecked(t, server.url, '/healthz');
  t.equal(health.status, 200, 'still healthy while the lock is held');
  for (const reply of [created, deleted]) {
    const id = String(reply.headers['x-request-id']);
    const warned = () =>
      log.split('\n').some((line) => line.includes('"level":40') && line.includes(`"reqId":"${id}"`) && /answered 503/.test(line));
    await until(warned, 10_000, `a warning logged for request ${id}`);
    t.ok(warned(), `the 503 is logged as a warning with its request id ${id}`);
  }

  holder.release();
  await until(holder.isReleased, 10_000, 'the lock holder releasing the lock');
  t.same(await listAll(server.url, token), [{ name: 'held' }], 'the refused create stored nothing, the refused delete deleted nothing');
  t.equal(
    (await fetchChecked(t, server.url, '/plants', { method: 'POST', headers, body: '{"id":7,"name":"retried"}' })).status,
    200,
    'a retry after the release commits',
  );
});
