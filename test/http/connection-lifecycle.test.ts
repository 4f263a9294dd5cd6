// One connection's record (src/http/connection.ts) from its socket's connect to the app's close: made before a byte is
// sent, serving pipelined requests in order and a refusal after them, dropped when the socket closes, and at the
// app's close every idle socket and every body still arriving closed, the extra accept sockets with them.
// The API's port is served by ACCEPT_SOCKETS listening sockets (SO_REUSEPORT), each handing its connections to the
// one HTTP server; a port in use is still refused, and the close lets go of every socket. What they are for (prompt
// accepts under overload) is measured by `npm run bench:overload`, not here.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { ACCEPT_SOCKETS, listenOnAcceptSockets } from '../../src/http/connection.js';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { parseAnswers } from '../helpers/pipeline.js';
import { cliCommand, finished, freePort } from '../helpers/process.js';
import { eventually, until } from '../helpers/until.js';

/** A client socket and everything it has been sent, with whether the server has closed it. */
function client(port: number) {
  const socket = connect(port, '127.0.0.1');
  const seen = { text: '', closed: false, socket };
  socket.on('data', (chunk: Buffer) => (seen.text += String(chunk)));
  socket.on('close', () => (seen.closed = true));
  socket.on('error', () => undefined);
  return seen;
}

t.test('a connection record lives as long as its socket, and the app closes every one', async (t) => {
  const app = await buildTestApp(t);
  const token = await tokenFor(app, 'alice');
  await listenOnAcceptSockets(app, '127.0.0.1', 0);
  const { port } = app.server.address() as AddressInfo;
  const { open, acceptors } = app.connections;
  t.equal(open.size, 0, 'no record before a connection');

  const silent = client(port);
  await until(() => open.size === 1, 5000, 'the record of a connection that has sent nothing');

  // A create, a read, then bytes that are not HTTP, in one write: answered in that order, then refused and closed.
  const piped = client(port);
  const body = '{"id":7,"name":"Fern"}';
  const auth = `Host: x\r\nAuthorization: Bearer ${token}\r\n`;
  piped.socket.write(
    `POST /plants HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
      `GET /plants HTTP/1.1\r\n${auth}\r\n` +
      'NOT HTTP\r\n\r\n',
  );
  await until(() => piped.closed, 5000, 'the refusal closing the pipelined connection');
  const answers = parseAnswers(piped.text);
  t.same(
    answers.map((answer) => answer.status),
    [200, 200, 400],
    'the create, the read, then the refusal',
  );
  t.match(answers[1]?.body, /"name":"Fern"/, 'the read pipelined after the create sees it');
  t.equal(answers[2]?.headers.connection, 'close', 'the refusal closes the connection');
  await until(() => open.size === 1, 5000, "the refused connection's record dropped");

  silent.socket.destroy();
  await until(() => open.size === 0, 5000, 'the record dropped when the client closes');

  // At the close: a keep-alive connection between requests, and one whose body is still arriving.
  const kept = client(port);
  kept.socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
  await until(() => parseAnswers(kept.text).length === 1, 5000, 'the keep-alive answer');
  const arriving = client(port);
  arriving.socket.write(`POST /plants HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n{"id"`);
  await until(() => open.size === 2, 5000, 'both records');
  t.ok(acceptors.length > 0 || process.platform !== 'linux', 'the extra accept sockets, where the platform has them');
  await app.close();
  await until(() => kept.closed, 5000, 'the idle keep-alive connection closed');
  await until(() => arriving.closed, 5000, 'the body still arriving cut off after the grace');
  t.equal(arriving.text, '', 'the half-sent request was not answered: nothing of it was done');
  t.equal(open.size, 0, 'no record is left');
  t.equal(acceptors.length, 0, 'the extra accept sockets are closed with the app');
});

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

t.test('the API port gets ACCEPT_SOCKETS sockets, each serving, and all of them close with the app', linuxOnly, async (t) => {
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

t.test('a request in flight on a connection an added socket accepted finishes before the close completes', linuxOnly, async (t) => {
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

t.test('with too few file descriptors for them, the service keeps one socket, says so, and serves', linuxOnly, async (t) => {
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
