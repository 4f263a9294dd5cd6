// SIGTERM with connections that hold no complete request (silent, half a header block, half a
// body): they are closed at once (a body still arriving gets BODY_GRACE_MS) and the process exits
// 0 within a second; a request in flight still finishes first.
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { BODY_GRACE_MS } from '../../src/http/connection.js';
import { bearer, tempDir } from '../helpers/app.js';
import { projectRoot } from '../helpers/paths.js';
import { loggedCreate, runCli, startServer, type RunningServer } from '../helpers/process.js';
import { until } from '../helpers/until.js';

type T = Parameters<typeof tempDir>[0];

/**
 * The bound is 1 s, and a quiet machine exits in 50 to 600 ms (docs/reliability.md). A test
 * cannot hold a loaded shared machine to that (closing the database, a WAL checkpoint and fsync, and
 * the process's own exit were seen to add up to 0.9 s there), so its bounds are ten times the typical
 * value and still tell "at once" from what a connection that held the shutdown would cost: the
 * shutdown limit, 10 s, after which the process exits 1. How fast shutdown is on a quiet machine is
 * docs/reliability.md's figure, not a unit test's.
 */
const EXIT_BOUND_MS = 6000;
/** A connection closes in a few to a few tens of milliseconds; held, it would stay until the 10 s limit. */
const AT_ONCE_MS = 3000;

async function setup(t: T) {
  const path = join(tempDir(t), 'plants.db');
  const env = { DATABASE_PATH: path, DATABASE_URL: '', LOG_LEVEL: 'info', WRITE_LOCK_TIMEOUT_MS: '60000' };
  const token = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
  return { path, token, server: await startServer(t, env) };
}

/** A raw connection that records what it hears and when it is closed. */
function open(server: RunningServer, first: string) {
  const socket: Socket = connect(server.port, '127.0.0.1');
  const state = { answer: '', closedAt: 0, connected: false };
  socket.on('connect', () => {
    state.connected = true;
    if (first !== '') socket.write(first);
  });
  socket.on('data', (chunk) => (state.answer += String(chunk)));
  socket.on('error', () => undefined);
  socket.on('close', () => (state.closedAt = performance.now()));
  return state;
}

/** One request on another connection: the server has read what was sent before it. */
const roundTrip = (server: RunningServer) =>
  fetch(`${server.url}/healthz`, { headers: { connection: 'close' } }).then((reply) => reply.text());

async function terminate(server: RunningServer) {
  const signalledAt = performance.now();
  server.child.kill('SIGTERM');
  const exit = await server.exit;
  return { exit, signalledAt, ms: performance.now() - signalledAt };
}

const cases = (token: string) => ({
  'a connection that has sent nothing': '',
  'half a header block': `GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n`,
  'half a body': `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"id":1,"na`,
});

for (const name of Object.keys(cases(''))) {
  t.test(`SIGTERM with ${name} open: closed, exit 0 at once`, async (t) => {
    const { token, server } = await setup(t);
    const first = cases(token)[name as keyof ReturnType<typeof cases>];
    const sawRequest = name === 'half a body' ? loggedCreate(server) : Promise.resolve();
    const connection = open(server, first);
    await until(() => connection.connected, 5000, 'the connection');
    await sawRequest;
    await roundTrip(server);
    const { exit, signalledAt, ms } = await terminate(server);
    t.comment(
      `${name}: exit ${exit.code} ${Math.round(ms)} ms after SIGTERM; connection closed after ${Math.round(connection.closedAt - signalledAt)} ms`,
    );
    t.equal(exit.code, 0, 'exit code 0');
    t.ok(ms < EXIT_BOUND_MS, `exited ${Math.round(ms)} ms after SIGTERM`);
    t.ok(connection.closedAt > 0, 'the connection was closed by the server');
    t.ok(
      connection.closedAt - signalledAt < (name === 'half a body' ? BODY_GRACE_MS + AT_ONCE_MS : AT_ONCE_MS),
      'at once, or once the grace for a body has passed',
    );
    t.equal(connection.answer, '', 'nothing was answered: no request was complete');
  });
}

t.test('SIGTERM with a request in flight and three unfinished connections: the request finishes, the others close at once', async (t) => {
  const { path, token, server } = await setup(t);
  // The create is in flight while another process holds the write lock: it waits until released.
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `const D = require('better-sqlite3'); const db = new D(process.argv[1]); db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n'); process.stdin.on('end', () => { db.exec('COMMIT'); process.exit(0); }).resume();`,
      path,
    ],
    { cwd: projectRoot, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  t.teardown(() => void holder.kill('SIGKILL'));
  await new Promise((resolve) => holder.stdout.once('data', resolve));
  const sawCreate = loggedCreate(server);
  const create = fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: '{"id":7,"name":"in flight"}',
  });
  await sawCreate;
  const others = Object.values(cases(token)).map((first) => open(server, first));
  await until(() => others.every((other) => other.connected), 5000, 'the connections');
  await roundTrip(server);

  const signalledAt = performance.now();
  server.child.kill('SIGTERM');
  // Closed while the process still waits for the request in flight (the lock holder releases only
  // when told, below): an order of events, with a bound well under the 10 s shutdown limit.
  await until(() => others.every((other) => other.closedAt > 0), EXIT_BOUND_MS, 'the unfinished connections closing');
  t.comment(`unfinished connections closed ${others.map((other) => Math.round(other.closedAt - signalledAt)).join(', ')} ms after SIGTERM`);
  t.equal(server.child.exitCode, null, 'the process waits for the request in flight');
  holder.stdin.end();
  const reply = await create;
  t.equal(reply.status, 200, 'the request in flight finished');
  t.equal(await reply.text(), '{"name":"in flight"}');
  const exit = await server.exit;
  t.equal(exit.code, 0);
});
