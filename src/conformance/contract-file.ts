// The openapi.yaml this package ships: found by walking up from this module to the package root,
// so it is the same file from src/ (tsx), dist/src/ (built) and node_modules/plant-store (installed).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export type JsonObject = Record<string, unknown>;

export function contractPath(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'plant-store' &&
      existsSync(join(dir, 'openapi.yaml'))
    ) {
      return join(dir, 'openapi.yaml');
    }
    if (dirname(dir) === dir) throw new Error(`openapi.yaml of the plant-store package was not found above ${from}`);
  }
}

export function loadContract(path = contractPath()): JsonObject {
  return parse(readFileSync(path, 'utf8')) as JsonObject;
}
