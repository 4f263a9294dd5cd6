// The breaking-change gate: compares the working tree's openapi.yaml with the one at --base <git-ref>
// (default: the last commit that changed info.version), one line per change; exits 1 on a breaking
// change unless info.version has a new major, 2 when it cannot compare.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import type { JsonObject } from './contract-diff/changes.js';
import { contractAt, lastRelease } from './contract-diff/git-base.js';
import { diffContracts } from './contract-diff/operation-diff.js';
import { versionRule } from './contract-diff/version-rule.js';

const USAGE = 'Usage: npm run check:breaking -- [--base <git-ref>] [--contract <file>]';

function main(): number {
  const { values } = parseArgs({
    options: { base: { type: 'string' }, contract: { type: 'string', default: 'openapi.yaml' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const cwd = process.cwd();
  const file = values.contract;
  let base = values.base;
  if (base === undefined) {
    const release = lastRelease(cwd, file);
    base = release.commit;
    console.log(
      `base: ${file} at ${release.commit.slice(0, 12)}, the last commit that changed info.version (to ${String(release.version)})`,
    );
  } else {
    console.log(`base: ${file} at ${base}`);
  }
  const before = contractAt(cwd, base, file);
  if (before === undefined) throw new Error(`there is no ${file} at ${base}`);
  const after = parse(readFileSync(file, 'utf8')) as JsonObject;
  const changes = diffContracts(before, after);
  for (const change of changes) console.log(`${change.severity.padEnd(12)} ${change.operation}  ${change.pointer}  ${change.message}`);
  const breaking = changes.filter((change) => change.severity === 'breaking').length;
  const rule = versionRule((before.info as JsonObject | undefined)?.version, (after.info as JsonObject | undefined)?.version, breaking);
  console.log(`${changes.length} change(s), ${breaking} breaking; ${rule.message}`);
  return rule.allowsBreaking ? 0 : 1;
}

try {
  process.exitCode = main();
} catch (error) {
  console.error(`check:breaking: ${(error as Error).message}\n${USAGE}`);
  process.exitCode = 2;
}
