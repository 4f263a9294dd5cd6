// A throwaway PostgreSQL server for tests and benchmarks: initdb and pg_ctl in a temporary folder, on 127.0.0.1 only.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PostgresCluster {
  /** A superuser URL for the `postgres` database; swap the path for another database. */
  url: string;
  port: number;
  /** The temporary folder: data/, the server log and the unix socket. */
  dir: string;
  /** URL of another database on this server. */
  urlFor(database: string): string;
  /** Stops the server (`pg_ctl stop -m <mode>`), keeping its data. */
  stop(mode?: 'smart' | 'fast' | 'immediate'): void;
  /** Starts it again on the same port, after stop(). */
  start(): void;
  /** The postmaster's process id while it runs. */
  pid(): number | undefined;
  /** Stops the server (immediate: the data is thrown away) and removes the folder. */
  destroy(): void;
}

export interface ClusterOptions {
  /** Extra postgresql.conf settings, e.g. { max_connections: '300', shared_buffers: '256MB' }. */
  settings?: Record<string, string>;
  /** Where to make the temporary folder (default: the OS temporary folder). */
  parent?: string;
}

/** The folder holding initdb and pg_ctl: PG_BIN, else the newest /usr/lib/postgresql/<n>/bin, else pg_config's. */
export function postgresBinDir(): string | undefined {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => join(debian, version, 'bin')));
  }
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    // no pg_config on the PATH
  }
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

/** PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (line === undefined) throw new Error('running as root, but there is no "postgres" user to run the PostgreSQL server as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startCluster(options: ClusterOptions = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (bin === undefined) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) were not found; install postgresql-15 or set PG_BIN');
  const user = serverUser();
  const dir = mkdtempSync(join(options.parent ?? tmpdir(), 'plant-store-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const password = randomBytes(18).toString('base64url');
  const asServerUser = (command: string) => (user ? ['runuser', '-u', 'postgres', '--', join(bin, command)] : [join(bin, command)]);
  const run = (command: string, args: string[]) => {
    const [file, ...argv] = [...asServerUser(command), ...args];
    const result = spawnSync(file!, argv, { encoding: 'utf8', cwd: dir });
    if (result.status !== 0) {
      const logText = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
      throw new Error(`${command} failed (${result.status ?? result.signal}): ${result.stderr}${result.stdout}\n${logText}`);
    }
  };
  try {
    writeFileSync(join(dir, 'password'), `${password}\n`, { mode: 0o600 });
    if (user) {
      chownSync(dir, user.uid, user.gid);
      chownSync(join(dir, 'password'), user.uid, user.gid);
    }
    chmodSync(dir, 0o700);
    // Password authentication over TCP even on a throwaway server: other users share this machine.
    run('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '--pwfile',
      join(dir, 'password'),
      '--auth-local=peer',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  let port = 0;
  const conf = join(data, 'postgresql.conf');
  const settings = { max_connections: '300', ...options.settings };
  const start = () => run('pg_ctl', ['start', '-D', data, '-l', log, '-w', '-t', '60']);
  // Another process can take the free port between the probe and the start: try a few.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    const lines = { listen_addresses: "'127.0.0.1'", port: String(port), unix_socket_directories: `'${dir}'`, ...settings };
    appendFileSync(
      conf,
      Object.entries(lines)
        .map(([name, value]) => `${name} = ${value}\n`)
        .join(''),
    );
    try {
      start();
      break;
    } catch (error) {
      if (attempt === 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  const urlFor = (database: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  const pid = () => {
    const file = join(data, 'postmaster.pid');
    return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined;
  };
  // A watchdog removes the server if this process dies without destroy(), even by SIGKILL or a
  // test runner's timeout, when no 'exit' handler runs: a throwaway server must not outlive its owner.
  const watchdog = spawn(
    '/bin/sh',
    [
      '-c',
      'while kill -0 "$0" 2>/dev/null; do sleep 1; done; "$@" stop -D "$DIR/data" -m immediate -w >/dev/null 2>&1; rm -rf "$DIR"',
      String(process.pid),
      ...asServerUser('pg_ctl'),
    ],
    { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DIR: dir } },
  );
  watchdog.unref();
  let destroyed = false;
  const destroy = () => {
    if (destroyed) return;
    destroyed = true;
    process.removeListener('exit', destroy);
    watchdog.kill();
    if (pid() !== undefined) {
      try {
        run('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w', '-t', '60']);
      } catch {
        // already stopped
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // A process that forgets to destroy its cluster (or fails) does not leave a server behind.
  process.once('exit', destroy);
  return {
    url: urlFor('postgres'),
    port,
    dir,
    urlFor,
    stop: (mode = 'fast') => run('pg_ctl', ['stop', '-D', data, '-m', mode, '-w', '-t', '60']),
    start,
    pid,
    destroy,
  };
}
