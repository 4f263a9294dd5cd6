// Starts the stand-alone mock (`plant-store-mock`, clients/typescript) on a free port and resolves once it listens.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Test } from 'tap';
import { projectRoot } from './paths.js';

export const MOCK_BIN = join(projectRoot, 'clients', 'typescript', 'bin', 'plant-store-mock.js');

/** A listening mock: its URL, and what it has written to stderr so far. */
export interface MockBin {
  url: string;
  stderr(): string;
}

/** The mock with these arguments (after `--port 0`), stopped when `t` ends; rejects, with its stderr, if it exits first. */
export function startMockBin(t: Test, args: string[]): Promise<MockBin> {
  const mock = spawn(process.execPath, [MOCK_BIN, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => void mock.kill('SIGTERM'));
  let errors = '';
  mock.stderr.on('data', (chunk) => (errors += String(chunk)));
  return new Promise<MockBin>((resolve, reject) => {
    let out = '';
    mock.stdout.on('data', (chunk) => {
      out += String(chunk);
      const url = /on (http:\/\/127\.0\.0\.1:\d+) /.exec(out)?.[1];
      if (url !== undefined) resolve({ url, stderr: () => errors });
    });
    mock.on('exit', (code) => reject(new Error(`plant-store-mock exited (${code}) before listening: ${errors}`)));
  });
}
