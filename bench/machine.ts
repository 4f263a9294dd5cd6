// The machine a run happened on, for the report: CPU, cores, memory, Node, load, pinning.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';

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

/** The commit the run measured, in full, with "+changes" when the tree differs from it (docs aside: the run rewrites them). */
export function gitRevision(root: string): string {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const changes = execFileSync('git', ['status', '--porcelain', '--', '.', ':(exclude)docs', ':(exclude)bench/findings.md'], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
    return changes === '' ? commit : `${commit}+changes`;
  } catch {
    return 'unknown';
  }
}

/** "wrk debian/4.1.0-3+b2 [epoll] Copyright (C) 2012 Will Glozer" -> "wrk debian/4.1.0-3+b2 [epoll]". */
const firstLine = (text: string) =>
  text
    .split('\n')[0]!
    .replace(/\s*Copyright.*$/, '')
    .trim();

/** The load generator's version, as it reports it. */
export function loadToolVersion(tool: 'wrk' | 'autocannon', root: string): string {
  try {
    if (tool === 'autocannon')
      return `autocannon ${(JSON.parse(readFileSync(join(root, 'node_modules', 'autocannon', 'package.json'), 'utf8')) as { version: string }).version}`;
    return firstLine(execFileSync('wrk', ['--version'], { encoding: 'utf8' }));
  } catch (error) {
    // wrk --version prints its version, then exits 1.
    return firstLine((error as { stdout?: string }).stdout ?? '') || 'unknown';
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
