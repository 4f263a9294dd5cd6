// The API's port is served by ACCEPT_SOCKETS listening sockets (SO_REUSEPORT), each handing its connections
// to the one HTTP server; a port in use is still refused, and the close lets go of every socket.
// What they are for (prompt accepts under overload) is measured by `npm run bench:overload`, not here.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'tap';
import { ACCEPT_SOCKETS, listenOnAcceptSockets } from '../../src/http/connection.js';
import { buildTestApp } from '../helpers/app.js';
import { cliCommand, finished, freePort } from '../helpers/process.js';
import { eventually, until } from '../helpers/until.js';

const linuxOnly = { skip: process.platform !== 'linux' && 'SO_REUSEPORT sockets are counted in /proc/net/tcp: Linux only' };

/** Sockets in LISTEN state on 127.0.0.1:port, of any process. */
function listeningOn(port: number): number {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, address, , state]) => address === local && state === '0A').length;
}

/** One GET on a connection of its own (no agent: each request opens a new connection). */
function healthz(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject).end();
  });
}

test('the API port gets ACCEPT_SOCKETS sockets, each serving, and all of them close with the app', linuxOnly, async (t) => {
  const app = await buildTestApp(t);
  await listenOnAcceptSockets(app, '127.0.0.1', 0);
  const { port } = app.server.address() as AddressInfo;
  t.equal(listeningOn(port), ACCEPT_SOCKETS, `${ACCEPT_SOCKETS} sockets listen on the port`);

  // 600 connections opened at once: the kernel spreads them over the sockets, so nearly all come through added ones.
  const statuses = await Promise.all(Array.from({ length: 600 }, () => healthz(port)));
  t.same(new Set(statuses), new Set([200]), 'every connection, whichever socket accepted it, is answered by the app');

  const second = await buildTestApp(t);
  await t.rejects(listenOnAcceptSockets(second, '127.0.0.1', port), { code: 'EADDRINUSE' }, 'a second server on the port is refused');
  t.equal(listeningOn(port), ACCEPT_SOCKETS, 'and takes none of its sockets');

  await app.close();
  t.equal(listeningOn(port), 0, 'no socket listens once the app is closed');
  const refused = await new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve('connected'));
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
  t.equal(refused, 'ECONNREFUSED', 'a new connection is refused');
});

test('a request in flight on a connection an added socket accepted finishes before the close completes', linuxOnly, async (t) => {
  const app = await buildTestApp(t);
  let started = 0;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  app.get('/slow', async () => {
    started++;
    await held;
    return { done: true };
  });
  await listenOnAcceptSockets(app, '127.0.0.1', 0);
  const { port } = app.server.address() as AddressInfo;

  // Each on a connection of its own: with 255 of the 256 sockets added, nearly all come through added ones.
  const answers = Array.from(
    { length: 20 },
    () =>
      new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/slow', agent: false }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve(`${res.statusCode} ${body}`));
        });
        req.on('error', reject).end();
      }),
  );
  await until(() => started === 20, 5000, 'the 20 requests in progress');
  let closed = false;
  const closing = app.close().then(() => (closed = true));
  await sleep(200);
  t.notOk(closed, 'the close waits for the requests in flight');
  release();
  t.same(await Promise.all(answers), Array(20).fill('200 {"done":true}'), 'each is answered in full');
  await closing;
  t.ok(closed, 'then the close completes');
});

test('with too few file descriptors for them, the service keeps one socket, says so, and serves', linuxOnly, async (t) => {
  const port = await freePort();
  const dir = t.testdir();
  const [command, args] = cliCommand(['serve']);
  // Soft and hard limit both 150, so Node cannot raise it: room for the process, not for 256 sockets.
  const child = spawn('bash', ['-c', 'ulimit -n 150 && exec "$0" "$@"', command, ...args], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATABASE_PATH: join(dir, 'plants.db'), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = finished(child);
  t.teardown(() => {
    child.kill('SIGKILL');
    return exit.then(() => undefined);
  });
  const healthy = async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200;
  await eventually(healthy, 30_000, 'the service answering /healthz');
  t.equal(listeningOn(port), 1, 'one socket listens');
  child.kill('SIGTERM');
  const { code, stdout } = await exit;
  t.equal(code, 0, 'and it exits 0 on SIGTERM');
  t.match(stdout, /"level":40,.*EMFILE.*could not get 256 sockets, so it keeps one/, 'a warning names the cause');
});
