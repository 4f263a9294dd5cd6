// The machine a run happened on, for the report: CPU, cores, memory, Node, load, pinning.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  kernel: string;
  loadBefore: number[];
}

export function describeMachine(): Machine {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
    loadBefore: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

export function hasCommand(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk --version exits 1 after printing its version: it exists.
    return (error as { code?: string }).code !== 'ENOENT';
  }
}

/** The commit the run measured, with "+changes" when the tree differs from it. */
export function gitRevision(root: string): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bench', 'generated'], { cwd: root, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit}+changes` : commit;
  } catch {
    return 'unknown';
  }
}

/** Whether this process may read other processes' /proc entries (Linux). */
export function hasProc(): boolean {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
}
