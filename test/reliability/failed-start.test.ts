// A start that fails (port taken, HOST not an address, metrics port taken) names its setting, leaves no port
// listening and creates no bootstrap token; a start that finds no token and may not print one says how to make one;
// a SQLite file or folder that cannot be written is refused with its cause (permission, read-only).
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { freshStore } from '../helpers/store-under-test.js';
import { tempDir } from '../helpers/app.js';
import { projectRoot } from '../helpers/paths.js';
import { cliCommand, finished, freePort, runCli, startServer } from '../helpers/process.js';
import { onlyOn } from '../helpers/store-under-test.js';
import { until } from '../helpers/until.js';

type T = Parameters<typeof freshStore>[0];

/** A port another process (here: this one) already listens on. */
async function takenPort(t: T): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as { port: number }).port;
}

/** Whether something accepts connections on the port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(true));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });

async function failedStart(t: T, env: Record<string, string>, setting: RegExp) {
  const store = await freshStore(t);
  const all = { ...store.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env };
  const result = await runCli(['serve'], all);
  t.equal(result.code, 1, 'exit code 1');
  t.match(result.stderr, setting, `names the setting: ${result.stderr.trim()}`);
  t.notMatch(result.stderr, /pst_|token|curl/i, 'prints nothing about a token');
  t.notMatch(result.stdout, /Server listening/, 'never said it listens');
  t.match((await runCli(['token', 'list'], store.env)).stdout, /^ID\tUSER\tCREATED\tSTATE\tEXPIRES\tLAST USED\n$/, 'created no token');
  return { result, env: all };
}

t.test('PORT taken: names PORT and the address, creates no token; the next start prints one', async (t) => {
  const port = await takenPort(t);
  const { env } = await failedStart(t, { PORT: String(port) }, new RegExp(`PORT 127\\.0\\.0\\.1:${port} is already in use`));
  const next = await startServer(t, env);
  next.child.kill('SIGTERM');
  t.match((await next.exit).stderr, /pst_[A-Za-z0-9_-]{43}/, 'the next start that listens prints the token');
});

t.test('HOST not an address: names HOST', async (t) => {
  await failedStart(t, { HOST: 'not-an-ip', PORT: String(await freePort()) }, /HOST not-an-ip:\d+ is neither an IP address nor a name/);
});

t.test('METRICS_PORT taken: names METRICS_PORT, and the API port is not left listening', async (t) => {
  const metrics = await takenPort(t);
  const api = await freePort();
  await failedStart(
    t,
    { PORT: String(api), METRICS_PORT: String(metrics) },
    new RegExp(`METRICS_PORT 127\\.0\\.0\\.1:${metrics} is already in use`),
  );
  t.equal(await listening(api), false, 'nothing listens on the API port');
});

t.test('no token and BOOTSTRAP_TOKEN=off: the start says how to create one; with a token it says nothing', async (t) => {
  const { env } = await freshStore(t);
  const off = { ...env, BOOTSTRAP_TOKEN: 'off' };
  const first = await startServer(t, off);
  first.child.kill('SIGTERM');
  const firstRun = await first.exit;
  t.match(firstRun.stderr, /No tokens exist.*npx plant-store token create <user>/, 'the hint');
  t.notMatch(firstRun.stderr, /pst_/);
  await runCli(['token', 'create', 'alice'], env);
  const second = await startServer(t, off);
  second.child.kill('SIGTERM');
  t.notMatch((await second.exit).stderr, /token/i, 'with a token in the database: nothing');
});

t.test('DATABASE_PATH that cannot be opened: the message names the setting and the file', onlyOn('sqlite'), async (t) => {
  const folder = tempDir(t);
  const result = await runCli(['serve'], { DATABASE_PATH: folder, DATABASE_URL: '', PORT: String(await freePort()) });
  t.equal(result.code, 1);
  t.match(result.stderr, `DATABASE_PATH: cannot open the SQLite database ${folder}: it is a folder`);
});

t.test('a SQLite file this process may not write stops start-up, named; it is never served read-only', onlyOn('sqlite'), async (t) => {
  const path = join(tempDir(t), 'plants.db');
  t.equal((await runCli(['token', 'create', 'alice'], { DATABASE_PATH: path, DATABASE_URL: '' })).code, 0);
  chmodSync(path, 0o444);
  // Root may write any file: without its capabilities (setpriv, util-linux) it is held to the file's mode, as any user is.
  const [node, args] = cliCommand(['serve']);
  const asUser = process.getuid?.() === 0 ? ['setpriv', '--inh-caps=-all', '--bounding-set=-all', node, ...args] : [node, ...args];
  const child = spawn(asUser[0]!, asUser.slice(1), {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_PATH: path, DATABASE_URL: '', PORT: String(await freePort()) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000); // a start that serves the file would run for ever
  const result = await finished(child);
  clearTimeout(killer);
  t.equal(result.code, 1, 'exit 1, not a service that answers every write 500');
  t.match(result.stderr, `DATABASE_PATH: cannot open the SQLite database ${path}: this process may not write to it`);
  t.notMatch(result.stdout + result.stderr, /Server listening/);
});

/** `plant-store serve` as a user without root's capabilities (setpriv, util-linux), so a file's mode holds it as any user. */
async function serveAsUser(env: Record<string, string>) {
  const [node, args] = cliCommand(['serve']);
  const asUser = process.getuid?.() === 0 ? ['setpriv', '--inh-caps=-all', '--bounding-set=-all', node, ...args] : [node, ...args];
  const child = spawn(asUser[0]!, asUser.slice(1), {
    cwd: projectRoot,
    env: { ...process.env, ...env, DATABASE_URL: '', HOST: '127.0.0.1', PORT: String(await freePort()) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000); // a start that serves would run for ever
  const result = await finished(child);
  clearTimeout(killer);
  return result;
}

t.test(
  'a folder this process may not write stops start-up naming the file and the cause (permission denied)',
  onlyOn('sqlite'),
  async (t) => {
    const folder = join(tempDir(t), 'locked');
    mkdirSync(folder, { mode: 0o555 });
    chmodSync(folder, 0o555);
    const path = join(folder, 'plants.db');
    const result = await serveAsUser({ DATABASE_PATH: path });
    t.equal(result.code, 1, 'exit 1');
    t.match(
      result.stderr,
      `DATABASE_PATH: cannot open the SQLite database ${path}: this process may not write to its folder ${folder} (permission denied`,
    );
    t.notMatch(result.stdout + result.stderr, /Server listening/);
  },
);

const asRoot = process.getuid?.() === 0 ? false : 'mounting a read-only tmpfs needs root';

t.test(
  'a read-only file system stops start-up naming the file and the cause (read-only)',
  { skip: onlyOn('sqlite').skip || asRoot },
  async (t) => {
    const folder = join(tempDir(t), 'ro');
    mkdirSync(folder);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', folder], { stdio: 'pipe' });
    t.teardown(() => execFileSync('umount', ['-l', folder]));
    const path = join(folder, 'plants.db');
    const result = await runCli(['serve'], { DATABASE_PATH: path, DATABASE_URL: '', HOST: '127.0.0.1', PORT: String(await freePort()) });
    t.equal(result.code, 1, 'exit 1');
    t.match(result.stderr, `DATABASE_PATH: cannot open the SQLite database ${path}: its folder ${folder} is on a read-only file system`);
  },
);

t.test('an OIDC_ISSUER that cannot be used is a warning at start with the real cause; start-up goes on', async (t) => {
  // A provider that answers HTML, and one whose document names another issuer.
  const provider = createHttpServer((request, response) => {
    if (request.url === '/html/.well-known/openid-configuration')
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>Sign in');
    else
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"issuer":"https://elsewhere.example/","jwks_uri":"https://elsewhere.example/jwks"}');
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => provider.close(resolve)));
  const base = `http://127.0.0.1:${(provider.address() as { port: number }).port}`;
  const { env } = await freshStore(t);
  const cases: Array<[string, string, RegExp]> = [
    ['unreachable', `http://127.0.0.1:${await freePort()}`, /cannot be reached: .*ECONNREFUSED/],
    ['not JSON', `${base}/html`, /is not JSON \(text\/html/],
    ['another issuer', `${base}/other`, /names the issuer \\"https:\/\/elsewhere\.example\/\\", not OIDC_ISSUER/],
  ];
  for (const [name, issuer, reason] of cases) {
    const [command, args] = cliCommand(['serve']);
    const child = spawn(command, args, {
      cwd: projectRoot,
      env: {
        ...process.env,
        ...env,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        LOG_LEVEL: 'info',
        OIDC_ISSUER: issuer,
        OIDC_AUDIENCE: 'https://plants.test',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.teardown(() => void child.kill('SIGKILL'));
    let log = '';
    child.stdout.on('data', (chunk) => (log += String(chunk)));
    const warning = () => log.split('\n').find((line) => line.includes('"level":40') && line.includes('OIDC_ISSUER'));
    await until(() => warning() !== undefined || child.exitCode !== null, 30_000, `${name}: the warning`);
    t.match(warning(), reason, `${name}: ${warning()}`);
    t.match(log, /Server listening/, `${name}: the service listens all the same`);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    t.equal(await exited, 0, `${name}: and stops normally`);
  }
});
