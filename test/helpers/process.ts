// Runs the real `plant-store` command as a child process, for tests of start-up, signals and the CLI.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Test } from 'tap';
import { projectRoot } from './paths.js';

const cli = join(projectRoot, 'src', 'cli.ts');

export function cliCommand(args: string[]): [string, string[]] {
  return [process.execPath, ['--import', 'tsx', cli, ...args]];
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the command to its end. */
export function runCli(args: string[], env: Record<string, string>): Promise<Finished> {
  const [command, commandArgs] = cliCommand(args);
  const child = spawn(command, commandArgs, { cwd: projectRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return finished(child);
}

function finished(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

export interface RunningServer {
  child: ChildProcess;
  url: string;
  port: number;
  /** Resolves when the process has exited. */
  exit: Promise<Finished>;
}

/** Starts `plant-store serve` on a free port and waits until it listens. */
export async function startServer(t: Test, env: Record<string, string>): Promise<RunningServer> {
  const [command, args] = cliCommand(['serve']);
  const child = spawn(command, args, {
    cwd: projectRoot,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = finished(child);
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exit.then(() => undefined);
  });
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${seen}`)), 30_000);
    child.stdout!.on('data', (chunk) => {
      seen += chunk;
      const match = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    void exit.then((result) => reject(new Error(`server exited early (${result.code}):\n${result.stderr}`)));
  });
  return { child, port, url: `http://127.0.0.1:${port}`, exit };
}
