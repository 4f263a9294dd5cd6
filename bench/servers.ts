// Starts and stops the servers under test as real processes, each pinned to the server core
// and working on its own copy of the data.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { workingCopy, type DataSet } from './data.js';

export type ServerKind = 'ceiling' | 'express-peer' | 'plant-store' | 'plant-store-per-request-normal';

export interface ServerSpec {
  /** Unique within a scenario, e.g. "plant-store" or "plant-store@10k". */
  id: string;
  kind: ServerKind;
  /** The data it serves; the ceiling has none. */
  data?: DataSet;
}

export interface RunningServer {
  spec: ServerSpec;
  pid: number;
  url: string;
  token: string;
  databasePath?: string;
  stop(): Promise<void>;
}

/** The compiled entry of each kind, relative to the project root. */
const ENTRY: Record<ServerKind, string> = {
  ceiling: 'dist/bench/servers/ceiling.js',
  'express-peer': 'dist/bench/servers/express-peer.js',
  'plant-store': 'dist/src/server.js',
  'plant-store-per-request-normal': 'dist/bench/servers/plant-store-per-request.js',
};

export const SERVER_ENV = {
  HOST: '127.0.0.1',
  NODE_ENV: 'production',
  BOOTSTRAP_TOKEN: 'off',
  LOG_LEVEL: 'warn',
  // The benchmark measures request handling, so no server limits the rate.
  RATE_LIMIT_PER_MINUTE: '0',
};

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function waitUntilListening(child: ChildProcess, port: number, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited early:\n${output()}`);
    if (await accepts(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`server did not listen within 30 s:\n${output()}`);
}

/** `pin` is a command prefix such as ['taskset', '-c', '0'], or empty. */
export async function startServer(spec: ServerSpec, root: string, workDir: string, pin: readonly string[]): Promise<RunningServer> {
  const copy = spec.data && (await workingCopy(spec.data, join(workDir, `${spec.id}.db`)));
  const port = await freePort();
  const [command, ...args] = [...pin, process.execPath, ENTRY[spec.kind]];
  const child = spawn(command!, args, {
    cwd: root,
    env: { ...process.env, ...SERVER_ENV, PORT: String(port), ...(copy && { DATABASE_PATH: copy.path }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  child.stderr!.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const exited = once(child, 'exit');
  await waitUntilListening(child, port, () => output);
  return {
    spec,
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    token: copy?.token ?? 'none',
    ...(copy && { databasePath: copy.path }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(killer);
    },
  };
}
