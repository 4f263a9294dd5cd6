// The contract a run checks against: the copy of openapi.yaml this package ships (dist/openapi.yaml, copied
// there by the build), or a file the user names with --contract (YAML or JSON).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export type JsonObject = Record<string, unknown>;

/** dist/openapi.yaml beside the built module; run from source (tests, tsx), the copy the last build made. */
export function shippedContractPath(): string {
  for (const candidate of ['./openapi.yaml', '../dist/openapi.yaml']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('the openapi.yaml this package ships is missing: build the package (npm run build) or pass --contract <file>');
}

/** YAML 1.2 is a superset of JSON: one parser reads both. */
export function loadContract(path = shippedContractPath()): JsonObject {
  const document = parse(readFileSync(path, 'utf8')) as unknown;
  if (typeof document !== 'object' || document === null || typeof (document as JsonObject).paths !== 'object')
    throw new Error(`${path} is not an OpenAPI document (it has no paths)`);
  return document as JsonObject;
}
