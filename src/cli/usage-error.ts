// A mistake on the command line: the `plant-store` command prints it with the usage and exits 2.
import type { ParseArgsConfig } from 'node:util';

export class UsageError extends Error {}

/**
 * Every command's parseArgs: its mistakes (which name the option) and arguments beyond `positionals` are usage errors,
 * and so is an option given twice, which parseArgs would settle by keeping the last: which one was meant is the operator's to say.
 */
export function parseCommandLine(args: string[], options: NonNullable<ParseArgsConfig['options']>, positionals = 0) {
  let parsed;
  try {
    const multiple = Object.fromEntries(Object.entries(options).map(([name, option]) => [name, { ...option, multiple: true }]));
    // By getBuiltinModule, not `import`: node:util's ESM facade loads much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
    parsed = process.getBuiltinModule('node:util').parseArgs({ args, allowPositionals: true, options: multiple });
  } catch (error) {
    throw new UsageError((error as Error).message); // "Option '--expires-in <value>' argument missing"
  }
  const values = parsed.values as Record<string, Array<string | boolean>>;
  const twice = Object.entries(values).find(([, given]) => given.length > 1);
  if (twice) throw new UsageError(`--${twice[0]} is given ${twice[1].length} times: give it once`);
  const extra = parsed.positionals.slice(positionals);
  if (extra.length > 0) throw new UsageError(`too many arguments: ${extra.join(' ')}`);
  const one = Object.fromEntries(Object.entries(values).map(([name, given]) => [name, given[0]]));
  return { positionals: parsed.positionals, values: one as Record<string, string | boolean | undefined> };
}
