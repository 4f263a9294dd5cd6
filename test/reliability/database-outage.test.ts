// PostgreSQL going away under a running service, on a server of the test's own: stopped, hung
// (every server process SIGSTOPped) and crashed under load. Requests answer 500 within the
// configured timeout, /readyz says 503, and both recover by themselves when the database returns.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { postgresBinDir, startCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { fetchChecked } from '../helpers/app.js';
import { listAll, load } from '../helpers/load.js';
import { adminQuery } from '../helpers/postgres-database.js';
import { runCli, startServer } from '../helpers/process.js';
import { onlyOn } from '../helpers/store-under-test.js';

const TIMEOUT_MS = 1500;
/** A database call waits at most the timeout for a connection and the timeout for its answer. */
const LONGEST_ANSWER_MS = 2 * TIMEOUT_MS + 1000;

const skip =
  onlyOn('postgres').skip ||
  (postgresBinDir() === undefined && 'needs initdb and pg_ctl: it stops and starts a PostgreSQL server of its own');

async function setup(t: Parameters<typeof startServer>[0]) {
  const cluster = await startCluster();
  t.teardown(() => cluster.destroy());
  await adminQuery(cluster.url, 'CREATE DATABASE plants');
  const env = {
    DATABASE_URL: cluster.urlFor('plants'),
    DATABASE_TIMEOUT_MS: String(TIMEOUT_MS),
    RATE_LIMIT_PER_MINUTE: '0',
    BOOTSTRAP_TOKEN: 'off',
    LOG_LEVEL: 'fatal',
  };
  const token = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
  const server = await startServer(t, env);
  const auth = { authorization: `Bearer ${token}` };
  return { cluster, server, token, auth };
}

/** Status and duration of one checked request. */
async function timed(t: Parameters<typeof startServer>[0], base: string, path: string, init: RequestInit = {}) {
  const started = Date.now();
  const reply = await fetchChecked(t, base, path, init);
  return { status: reply.status, ms: Date.now() - started, reply };
}

async function waitReady(base: string, withinMs = 15_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if ((await fetch(`${base}/readyz`)).status === 200) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`/readyz did not recover within ${withinMs} ms`);
}

/** The postmaster and every process it started (backends, checkpointer, walwriter, ...). */
function serverProcesses(cluster: PostgresCluster): number[] {
  const postmaster = cluster.pid()!;
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && existsSync(`/proc/${entry}/stat`))
    .filter((entry) => {
      try {
        // Field 4 of /proc/<pid>/stat is the parent; the command name before it may hold spaces.
        return Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === postmaster;
      } catch {
        return false; // the process ended while we looked
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/** Signals one of the test server's processes, which may have ended meanwhile. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

t.test('stopped: 500 fast and /readyz 503, then both recover when it starts again', { skip }, async (t) => {
  const { cluster, server, auth } = await setup(t);
  const json = { ...auth, 'content-type': 'application/json' };
  t.equal((await fetchChecked(t, server.url, '/plants', { method: 'POST', headers: json, body: '{"id":1,"name":"Before"}' })).status, 200);

  cluster.stop('fast');
  const ready = await timed(t, server.url, '/readyz');
  t.equal(ready.status, 503, `/readyz 503 in ${ready.ms} ms`);
  t.match(ready.reply.json().message, /database is not reachable/);
  for (const [method, path, body] of [
    ['GET', '/plants'],
    ['POST', '/plants', '{"id":2,"name":"During"}'],
    ['DELETE', '/plants/1'],
  ] as const) {
    const answer = await timed(t, server.url, path, { method, headers: json, body });
    t.equal(answer.status, 500, `${method} ${path}: 500 in ${answer.ms} ms`);
    t.ok(answer.ms < LONGEST_ANSWER_MS, `${method} ${path} did not hang`);
  }
  t.equal((await fetchChecked(t, server.url, '/healthz')).status, 200, 'the process itself stays up');

  cluster.start();
  t.ok((await waitReady(server.url)) >= 0, '/readyz 200 again, without a restart of the service');
  t.same((await fetchChecked(t, server.url, '/plants', { headers: auth })).json(), [{ name: 'Before' }], 'reads work again');
  t.equal(
    (await fetchChecked(t, server.url, '/plants', { method: 'POST', headers: json, body: '{"id":2,"name":"After"}' })).status,
    200,
    'writes work again',
  );
});

t.test('hung (accepts connections, answers nothing): 500 and 503 within the timeout, then recovery', { skip }, async (t) => {
  const { cluster, server, auth } = await setup(t);
  t.equal((await fetchChecked(t, server.url, '/plants', { headers: auth })).status, 200, 'the pool holds a live connection');
  const processes = serverProcesses(cluster);
  const resume = () => processes.forEach((pid) => signal(pid, 'SIGCONT'));
  t.teardown(resume); // also when an assertion below throws: a stopped server would never shut down
  processes.forEach((pid) => signal(pid, 'SIGSTOP'));

  const ready = await timed(t, server.url, '/readyz');
  t.equal(ready.status, 503, `/readyz 503 in ${ready.ms} ms`);
  t.ok(ready.ms < LONGEST_ANSWER_MS, '/readyz did not hang');
  const list = await timed(t, server.url, '/plants', { headers: auth });
  t.equal(list.status, 500, `GET /plants 500 in ${list.ms} ms`);
  t.ok(list.ms >= TIMEOUT_MS - 100 && list.ms < LONGEST_ANSWER_MS, 'it waited for the timeout, and no longer');

  resume();
  t.ok((await waitReady(server.url)) >= 0, '/readyz 200 again');
  t.equal((await fetchChecked(t, server.url, '/plants', { headers: auth })).status, 200);
});

t.test('crashed under load (pg_ctl stop -m immediate): every acknowledged create survives recovery', { skip }, async (t) => {
  const { cluster, server, token } = await setup(t);
  const client = load(server.url, 16);
  t.teardown(() => client.close());
  const acknowledged = new Set<string>();
  const failed = new Set<number | string | undefined>();
  let crashed = false as boolean; // set in a callback: not a constant, whatever the narrowing says
  const sends = Array.from({ length: 600 }, (_, index) =>
    client.send('POST', '/plants', token, `{"id":${index - 2 ** 31},"name":"p${index}"}`).then((outcome) => {
      if (outcome.status === 200) acknowledged.add(`p${index}`);
      else failed.add(outcome.status ?? outcome.error);
      // Crash PostgreSQL (no shutdown checkpoint: recovery replays the WAL) in the middle of the load.
      if (acknowledged.size === 200 && !crashed) {
        crashed = true;
        cluster.stop('immediate');
      }
    }),
  );
  await Promise.all(sends);
  t.ok(
    crashed && acknowledged.size >= 200 && acknowledged.size < 600,
    `${acknowledged.size} of 600 acknowledged before and around the crash`,
  );
  t.same(
    [...failed].filter((status) => status !== 500),
    [],
    'the creates that failed answered 500',
  );

  cluster.start();
  await waitReady(server.url);
  const listed = new Set((await listAll(server.url, token)).map((plant) => plant.name));
  t.same(
    [...acknowledged].filter((name) => !listed.has(name)),
    [],
    `all ${acknowledged.size} acknowledged creates are listed after crash recovery`,
  );
  // Nothing to compare with PRAGMA integrity_check: amcheck verifies the primary key's B-tree and that it indexes every row.
  const url = cluster.urlFor('plants');
  await adminQuery(url, 'CREATE EXTENSION IF NOT EXISTS amcheck');
  const checked = await adminQuery(
    url,
    "SELECT bt_index_check(indexrelid, true) FROM pg_index WHERE indrelid IN ('plants'::regclass, 'tokens'::regclass)",
  );
  t.equal(checked.rowCount, 3, 'amcheck bt_index_check passed on the plants key and the tokens indexes');
});
