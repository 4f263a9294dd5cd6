// Runs the real `plant-store` command as a child process, for tests of start-up, signals and the CLI.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Test } from 'tap';
import { projectRoot } from './paths.js';

const cli = join(projectRoot, 'src', 'cli.ts');

export function cliCommand(args: string[]): [string, string[]] {
  // tsx by its resolved URL: a command run from another folder would not find it by name.
  return [process.execPath, ['--import', import.meta.resolve('tsx'), cli, ...args]];
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the command to its end, in the project's folder unless `cwd` says otherwise. */
export function runCli(args: string[], env: Record<string, string>, cwd = projectRoot): Promise<Finished> {
  const [command, commandArgs] = cliCommand(args);
  const child = spawn(command, commandArgs, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return finished(child);
}

/** Collects a child's output until it ends; stdout is also handed to `onStdout` as it comes, for tests that act mid-run. */
export function finished(child: ChildProcess, onStdout: (all: string) => void = () => undefined): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    stdout += String(chunk);
    onStdout(stdout);
  });
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

export interface RunningServer {
  child: ChildProcess;
  url: string;
  port: number;
  /** Resolves when the process has exited. */
  exit: Promise<Finished>;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `plant-store serve` on a free port and waits until /healthz answers. */
export async function startServer(t: Test, env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  const [command, args] = cliCommand(['serve']);
  const child = spawn(command, args, {
    cwd: projectRoot,
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = finished(child);
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exit.then(() => undefined);
  });
  const url = `http://127.0.0.1:${port}`;
  let exited: Finished | undefined;
  void exit.then((result) => (exited = result));
  for (const started = Date.now(); Date.now() - started < 30_000; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (exited) throw new Error(`server exited early (${exited.code}):\n${exited.stderr}`);
    const up = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return { child, port, url, exit };
  }
  throw new Error('server did not answer /healthz within 30 seconds');
}

/** Resolves once the server's stdout (its JSON log) has a line matching `pattern`; rejects if it exits first. */
export function logged(server: RunningServer, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += String(chunk);
      if (!pattern.test(seen)) return;
      server.child.stdout!.off('data', look);
      resolve();
    };
    server.child.stdout!.on('data', look);
    // Without this a server that died would leave the test waiting for tap's timeout.
    void server.exit.then(({ code, signal, stderr }) => {
      if (!pattern.test(seen)) reject(new Error(`the server exited (${code ?? signal}) without logging ${pattern}:\n${stderr}`));
    });
  });
}

/**
 * Resolves once the server has logged the arrival of a POST /plants. That request's line, not any
 * "incoming request": the line of the /healthz poll that startServer made can reach the pipe after
 * its answer, and matching it would say the create had arrived when it had not.
 */
export function loggedCreate(server: RunningServer): Promise<void> {
  return logged(server, /"req":\{"method":"POST","url":"\/plants".*"msg":"incoming request"/);
}
