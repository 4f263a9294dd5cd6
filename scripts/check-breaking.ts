// The breaking-change gate: compares the working tree's openapi.yaml with the one at --base <git-ref>
// (default: the last commit that changed info.version), one line per breaking change (--verbose: every
// change, with where it is written); exits 1 on a breaking change unless info.version has a new major or
// the sunset rule allows it, 2 when it cannot compare.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import type { Change, JsonObject } from './contract-diff/changes.js';
import { contractAt, lastRelease } from './contract-diff/git-base.js';
import { diffContracts } from './contract-diff/operation-diff.js';
import { versionRule } from './contract-diff/version-rule.js';

const USAGE = 'Usage: npm run check:breaking -- [--base <git-ref>] [--contract <file>] [--verbose]';

/** `breaking`, `allowed` (a removal the sunset rule allows) or `non-breaking`. */
const kind = (change: Change) => (change.severity === 'breaking' && change.allowedBy !== undefined ? 'allowed' : change.severity);

function line(change: Change, verbose: boolean): string {
  const rule = change.allowedBy === undefined ? '' : ` (${change.allowedBy})`;
  const where = verbose ? `  ${change.pointer}` : '';
  return `${kind(change).padEnd(12)} ${change.operation}${where}  ${change.message}${rule}`;
}

function main(): number {
  const { values } = parseArgs({
    options: {
      base: { type: 'string' },
      contract: { type: 'string', default: 'openapi.yaml' },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean' },
    },
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
  const count = (which: string) => changes.filter((change) => kind(change) === which).length;
  const [breaking, allowed, other] = [count('breaking'), count('allowed'), count('non-breaking')];
  // One line per change a reviewer must look at; what does not break anyone only with --verbose.
  for (const change of changes) if (values.verbose || kind(change) !== 'non-breaking') console.log(line(change, values.verbose));
  const rule = versionRule((before.info as JsonObject | undefined)?.version, (after.info as JsonObject | undefined)?.version, breaking);
  const counts = [`${changes.length} change(s), ${breaking} breaking`];
  if (allowed > 0) counts.push(`${allowed} removal(s) allowed by the sunset rule`);
  if (other > 0) counts.push(`${other} non-breaking${values.verbose ? '' : ' (--verbose lists them)'}`);
  console.log(`${counts.join(', ')}; ${rule.message}`);
  return rule.allowsBreaking ? 0 : 1;
}

try {
  process.exitCode = main();
} catch (error) {
  console.error(`check:breaking: ${(error as Error).message}\n${USAGE}`);
  process.exitCode = 2;
}
