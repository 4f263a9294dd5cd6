// Starts and stops the servers under test as real processes, each pinned to the server core
// and working on its own copy of the data (a SQLite file, or a PostgreSQL database).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { BENCH_USER } from './bench-user.js';
import { seedPlants, workingCopy, type DataSet } from './data.js';
import type { Seed } from './load/seeds.js';
import { seedPostgresPlants, type PostgresData } from './postgres-data.js';
import { startFlags } from './start-flags.js';

export type ServerKind =
  'ceiling' | 'ceiling-pages' | 'express-peer' | 'plant-store' | 'plant-store-per-request-normal' | 'plant-store-postgres';

export interface ServerSpec {
  /** Unique within a scenario, e.g. "plant-store" or "plant-store@10k". */
  id: string;
  kind: ServerKind;
  /** The data it serves; the ceiling has none. */
  data?: DataSet;
  /** Processes sharing the one database (plant-store-postgres); 1 when not given. */
  instances?: number;
  /** Users besides the bench user who need a token (the realistic mix's). */
  users?: readonly string[];
  /** Plant Store with Prometheus metrics on (METRICS_PORT on a free port of its own), for their cost. */
  metrics?: boolean;
  /** Another built checkout to run this server from (`--baseline`); this one when not given. */
  root?: string;
}

export interface ServerInstance {
  pid: number;
  url: string;
}

export interface RunningServer {
  spec: ServerSpec;
  instances: ServerInstance[];
  /** The bench user's token. */
  token: string;
  /** Every user's token: the bench user's and those of `spec.users`. */
  tokens: ReadonlyMap<string, string>;
  /** Makes these plants exist, for deletes to find. */
  seed(seeds: readonly Seed[]): Promise<void>;
  stop(): Promise<void>;
}

/** The compiled entry of each kind, relative to the project root. */
const ENTRY: Record<ServerKind, string> = {
  ceiling: 'dist/bench/servers/ceiling.js',
  'ceiling-pages': 'dist/bench/servers/ceiling-pages.js',
  'express-peer': 'dist/bench/servers/express-peer.js',
  'plant-store': 'dist/src/server.js',
  'plant-store-per-request-normal': 'dist/bench/servers/plant-store-per-request.js',
  'plant-store-postgres': 'dist/src/server.js',
};

/** Plant Store in every form runs with the Node.js flags of `npm start`; the references with none. */
const PLANT_STORE_KINDS: ReadonlySet<ServerKind> = new Set(['plant-store', 'plant-store-per-request-normal', 'plant-store-postgres']);

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
    socket.once('connect', () =>
      socket.end(() => {
        resolve(true);
      }),
    );
    socket.once('error', () => {
      resolve(false);
    });
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

interface Process extends ServerInstance {
  stop(): Promise<void>;
}

async function startProcess(
  kind: ServerKind,
  root: string,
  env: Record<string, string>,
  pin: readonly string[],
  metrics = false,
): Promise<Process> {
  const port = await freePort();
  const metricsPort = metrics ? await freePort() : undefined;
  const nodeFlags = PLANT_STORE_KINDS.has(kind) ? startFlags(root) : [];
  const [command, ...args] = [...pin, process.execPath, ...nodeFlags, ENTRY[kind]];
  const portEnv = { PORT: String(port), ...(metricsPort !== undefined && { METRICS_PORT: String(metricsPort) }) };
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...SERVER_ENV, ...portEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const exited = once(child, 'exit');
  await waitUntilListening(child, port, () => output);
  // The metrics port opens right after the API's: waiting for it shows metrics are really on.
  if (metricsPort !== undefined) await waitUntilListening(child, metricsPort, () => output);
  return {
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Where a server keeps its data: the environment that names it, its token, and how to add plants to it. */
interface ServerData {
  env: Record<string, string>;
  tokens: Map<string, string>;
  seed(seeds: readonly Seed[]): Promise<void>;
}

async function prepareData(spec: ServerSpec, workDir: string, postgres: PostgresData | undefined): Promise<ServerData> {
  if (spec.kind === 'plant-store-postgres') {
    if (postgres === undefined) throw new Error(`${spec.id} needs the benchmark's PostgreSQL server`);
    const { url, tokens } = await postgres.copy(spec.id, spec.users);
    return { env: { DATABASE_URL: url }, tokens, seed: (seeds) => seedPostgresPlants(url, seeds) };
  }
  if (spec.data) {
    const { path, tokens } = await workingCopy(spec.data, join(workDir, `${spec.id}.db`), spec.users);
    return {
      env: { DATABASE_PATH: path },
      tokens,
      seed: (seeds) => {
        seedPlants(path, seeds);
        return Promise.resolve();
      },
    };
  }
  // The ceilings check no token; they get one that says so.
  return { env: {}, tokens: new Map([BENCH_USER, ...(spec.users ?? [])].map((user) => [user, 'none'])), seed: () => Promise.resolve() };
}

/** `pin` is a command prefix such as ['taskset', '-c', '0'], or empty; `postgres` holds the databases of plant-store-postgres. */
export async function startServer(
  spec: ServerSpec,
  root: string,
  workDir: string,
  pin: readonly string[],
  postgres?: PostgresData,
): Promise<RunningServer> {
  const data = await prepareData(spec, workDir, postgres);
  const processes: Process[] = [];
  const stop = async () => {
    await Promise.all(processes.map((child) => child.stop()));
  };
  try {
    // One after the other: the first applies any migration, the next find them done.
    for (let i = 0; i < (spec.instances ?? 1); i++)
      processes.push(await startProcess(spec.kind, spec.root ?? root, data.env, pin, spec.metrics));
  } catch (error) {
    await stop();
    throw error;
  }
  const token = data.tokens.get(BENCH_USER)!;
  return {
    spec,
    instances: processes.map(({ pid, url }) => ({ pid, url })),
    token,
    tokens: data.tokens,
    seed: (seeds) => data.seed(seeds),
    stop,
  };
}
