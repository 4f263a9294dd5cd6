// Runs the package's command, plant-store-conformance, from its source (tsx) as a child process, for the
// package's tests: the same code the bin runs once built, without a build between a change and its test.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../helpers/paths.js';
import { finished, type Finished } from '../../helpers/process.js';

const bin = join(projectRoot, 'clients', 'conformance', 'src', 'bin.ts');

export function conformanceProcess(args: string[], cwd = projectRoot): ChildProcess {
  return spawn(process.execPath, ['--import', import.meta.resolve('tsx'), bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs it to its end; stdout is also handed to `onStdout` as it comes, for tests that act mid-run. */
export function runConformance(args: string[], onStdout?: (all: string) => void): Promise<Finished> {
  return finished(conformanceProcess(args), onStdout);
}

export interface Deployment {
  url: string;
  token: string;
  otherToken: string;
}

export const runArgs = (url: string, { token, otherToken }: Pick<Deployment, 'token' | 'otherToken'>, extra: string[] = []) => [
  '--base-url',
  url,
  '--token',
  token,
  '--other-token',
  otherToken,
  ...extra,
];
