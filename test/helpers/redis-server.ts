// A throwaway redis-server for tests (Debian's package): on a free port of 127.0.0.1, in a temporary
// folder, nothing saved to disk; it can be killed, paused and started again on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { delimiter, join } from 'node:path';
import type { Test } from 'tap';
import { freePort } from './process.js';
import { tempDir } from './temp-dir.js';

/** redis-server on the PATH, else Debian's /usr/bin/redis-server. */
export function redisServerPath(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== ''), '/usr/bin'];
  return dirs.map((dir) => join(dir, 'redis-server')).find((path) => existsSync(path));
}

/** Why Redis tests skip here, or undefined when they run. With CI=true they always run, and fail without redis-server. */
export function skipReason(): string | undefined {
  if (redisServerPath() !== undefined || process.env.CI === 'true') return undefined;
  return 'no redis-server on the PATH or in /usr/bin; install it with "apt-get install redis-server" (with CI=true this fails instead)';
}

export interface RedisServer {
  url: string;
  port: number;
  /** Kills the server (SIGKILL, as a crash would); its counters are lost, as nothing is saved. */
  kill(): Promise<void>;
  /** Starts it again on the same port, after kill(), and waits until it answers. */
  start(): Promise<void>;
  /** Stops it answering without closing its connections (SIGSTOP), as a hung server or a lost network would. */
  pause(): void;
  resume(): void;
}

/** Answers PONG to a PING on `port`, within a second. */
export function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const end = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => end(false));
    socket.on('error', () => end(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += String(chunk);
      if (reply.includes('\r\n')) end(reply.startsWith('+PONG'));
    });
  });
}

/** Starts redis-server for the test (failing the test when it is missing) and removes it when the test ends. */
export async function startRedis(t: Test): Promise<RedisServer> {
  const binary = redisServerPath();
  if (binary === undefined) throw new Error('no redis-server on the PATH or in /usr/bin (apt-get install redis-server)');
  const dir = tempDir(t);
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  const start = async () => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--daemonize',
      'no',
      '--protected-mode',
      'yes',
    ];
    const started = spawn(binary, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    started.stdout.on('data', (chunk) => (output = (output + String(chunk)).slice(-4000)));
    started.stderr.on('data', (chunk) => (output = (output + String(chunk)).slice(-4000)));
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    // Should this process die without its teardown (SIGKILL, a runner's timeout), the server goes too.
    // It ends by itself once the server has gone.
    const script = 'while kill -0 "$1" 2>/dev/null; do kill -0 "$0" 2>/dev/null || { kill -9 "$1"; exit; }; sleep 1; done';
    spawn('/bin/sh', ['-c', script, String(process.pid), String(started.pid)], { detached: true, stdio: 'ignore' }).unref();
    for (const since = Date.now(); !(await answersPing(port)); await new Promise((resolve) => setTimeout(resolve, 20))) {
      if (started.exitCode !== null) throw new Error(`redis-server exited (${started.exitCode}):\n${output}`);
      if (Date.now() - since > 10_000) throw new Error(`redis-server did not answer PING within 10 s:\n${output}`);
    }
  };
  const kill = async () => {
    child?.kill('SIGCONT'); // a paused server must be able to die
    child?.kill('SIGKILL');
    await exited;
  };
  t.teardown(kill);
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, kill, start, pause: () => child?.kill('SIGSTOP'), resume: () => child?.kill('SIGCONT') };
}
