// The real process: configuration errors, the bootstrap token, and graceful shutdown on signals.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { fetchChecked, tempDir } from './helpers/app.js';
import { freshStore } from './helpers/store-under-test.js';
import { logged, loggedCreate, runCli, startServer } from './helpers/process.js';
import { until } from './helpers/until.js';

t.test('a bad setting stops start-up with a message naming the variable, exit code 1', async (t) => {
  const { env } = await freshStore(t);
  for (const [name, value] of [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['LOG_LEVEL', 'loud'],
    ['RATE_LIMIT_PER_MINUTE', '-1'],
    ['BOOTSTRAP_TOKEN', 'maybe'],
    ['AUTH_FAILURES_PER_MINUTE', '0'],
    ['DATABASE_URL', 'mysql://root:secret@db/plants'],
  ]) {
    const result = await runCli(['serve'], { ...env, [name!]: value! });
    t.equal(result.code, 1, `${name}=${value}`);
    t.match(result.stderr, new RegExp(`^plant-store: ${name} must be`), `${name}=${value}: ${result.stderr.trim()}`);
    t.notMatch(result.stderr, /secret/, 'a password in the value is not repeated');
  }
});

t.test('first start on an empty database prints one token for "default" on the terminal, not in the log', async (t) => {
  const { env } = await freshStore(t);
  const first = await startServer(t, env);
  first.child.kill('SIGTERM');
  const firstRun = await first.exit;
  const token = /pst_[A-Za-z0-9_-]{43}/.exec(firstRun.stderr)?.[0];
  t.ok(token, 'stderr shows a token');
  t.match(firstRun.stderr, /user "default"/);
  t.notMatch(firstRun.stdout, /pst_/, 'the JSON log never holds it');

  const second = await startServer(t, env);
  const listed = await fetchChecked(t, second.url, '/plants', { headers: { authorization: `Bearer ${token}` } });
  t.equal(listed.status, 200, 'the printed token works');
  second.child.kill('SIGINT');
  const secondRun = await second.exit;
  t.equal(secondRun.code, 0, 'SIGINT exits 0');
  t.notMatch(secondRun.stderr, /pst_/, 'printed only once');
  // Never expires; its use above was written when the server stopped, at the latest.
  t.match((await runCli(['token', 'list'], env)).stdout, /\n1\tdefault\t\S+\tactive\tnever\t\d{4}-\S+Z\n$/);
});

t.test('BOOTSTRAP_TOKEN=off creates no token', async (t) => {
  const { env } = await freshStore(t);
  const server = await startServer(t, { ...env, BOOTSTRAP_TOKEN: 'off' });
  server.child.kill('SIGTERM');
  t.notMatch((await server.exit).stderr, /pst_/);
  t.match((await runCli(['token', 'list'], env)).stdout, /^ID\tUSER\tCREATED\tSTATE\tEXPIRES\tLAST USED\n$/);
});

t.test('SIGTERM finishes the request in flight, then exits 0', async (t) => {
  const { env } = await freshStore(t);
  const token = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
  const server = await startServer(t, env);
  const body = '{"id":1,"name":"In flight"}';
  const answer = new Promise<{ status: number; body: string; connection?: string }>((resolve, reject) => {
    const req = request(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('response', (response) => {
      let text = '';
      response.on('data', (chunk) => (text += String(chunk)));
      response.on('end', () => resolve({ status: response.statusCode!, body: text, connection: response.headers.connection }));
    });
    req.on('error', reject);
    // Half the body now, the rest once the server has begun shutting down: the request is in
    // flight when SIGTERM lands. Each step waits for the server's log line, not for a fixed time.
    req.write(body.slice(0, 10));
    void loggedCreate(server)
      .then(() => server.child.kill('SIGTERM'))
      .then(() => logged(server, /shutting down/))
      .then(() => req.end(body.slice(10)), reject);
  });
  const reply = await answer;
  t.equal(reply.status, 200);
  t.equal(reply.body, '{"name":"In flight"}');
  t.equal(reply.connection, 'close', 'a response during shutdown tells the client not to reuse the connection');
  const started = Date.now();
  const result = await server.exit;
  t.equal(result.code, 0);
  t.ok(Date.now() - started < 10_000, 'exits within 10 seconds');
  t.match(result.stdout, /shutting down/);
});

t.test('an uncaught error is logged as an error and the process exits 1 (close-with-grace)', async (t) => {
  const { env } = await freshStore(t);
  // Preloaded into the server process: a throw outside any request, on a signal this test sends.
  const preload = join(tempDir(t), 'throw-on-sigwinch.mjs');
  writeFileSync(preload, "process.on('SIGWINCH', () => setImmediate(() => { throw new Error('thrown outside any request'); }));\n");
  const server = await startServer(t, { ...env, NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` });
  server.child.kill('SIGWINCH');
  const result = await server.exit;
  t.equal(result.code, 1, 'exit code 1');
  const line = result.stdout.split('\n').find((text) => text.includes('uncaught error'));
  t.match(line, /"level":50.*thrown outside any request/, 'logged as an error with its cause');
});

// Linux caps the backlog at net.core.somaxconn: below 1,000 (before Linux 5.4, say), or elsewhere, nothing to test.
const SOMAXCONN = '/proc/sys/net/core/somaxconn';
const somaxconn = existsSync(SOMAXCONN) ? Number(readFileSync(SOMAXCONN, 'utf8')) : 0;
t.test(
  '1,000 connections opened at once all complete while the server is too busy to accept',
  { skip: !(somaxconn >= 1000) && `net.core.somaxconn is ${somaxconn}` },
  async (t) => {
    const { env } = await freshStore(t);
    const server = await startServer(t, { ...env, BOOTSTRAP_TOKEN: 'off' });
    // Stopped, the process accepts nothing: every connection waits in the kernel's queue, as under load.
    server.child.kill('SIGSTOP');
    const sockets: Socket[] = [];
    t.teardown(() => {
      for (const socket of sockets) socket.destroy();
      server.child.kill('SIGCONT');
    });
    let connected = 0;
    for (let i = 0; i < 1000; i++) sockets.push(connect(server.port, '127.0.0.1', () => connected++).on('error', () => undefined));
    // With Node's default backlog (511) the kernel drops the other SYNs: they never connect while the process is stopped.
    await until(() => connected === 1000, 10_000).catch(() => undefined);
    t.equal(connected, 1000, 'connections the kernel completed');
  },
);
