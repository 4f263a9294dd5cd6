// A temporary folder that is removed when the test ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';

export function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
