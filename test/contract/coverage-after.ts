// Runs after the SQLite leg of `npm test`, the whole suite: fails the run, listing them, when a declared
// (operation, status, media type) of openapi.yaml was never answered in any test.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { coverageDir, declaredPairs } from '../helpers/contract.js';

const files = existsSync(coverageDir) ? readdirSync(coverageDir).map((name) => join(coverageDir, name)) : [];
const seen = new Set<string>();
for (const file of files) {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    const { key } = JSON.parse(line) as { key?: string }; // the first line names the test file
    if (key !== undefined) seen.add(key);
  }
}
const missing = declaredPairs().filter((pair) => !seen.has(pair));
if (missing.length === 0) {
  console.log(`contract sentinel: all ${declaredPairs().length} declared (operation, status, media type) answers were exercised`);
} else {
  console.error(
    `contract sentinel: these declared (operation, status, media type) answers were never exercised by any test:\n  ${missing.join('\n  ')}`,
  );
  process.exitCode = 1;
}
