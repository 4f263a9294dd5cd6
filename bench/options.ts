// Command-line options of `npm run bench`.
import { parseArgs } from 'node:util';

export interface Options {
  quick: boolean;
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  tool: 'autocannon' | 'wrk';
  /** Only these scenario ids; all (or the quick ones) when empty. */
  only: string[];
  /** Rewrite docs/benchmarks.md, .svg and .json. */
  writeDocs: boolean;
  /** Only rewrite the docs from this earlier results file. */
  render?: string;
  /** A built checkout of another revision, run beside plant-store as plant-store@baseline. */
  baseline?: string;
}

export const USAGE = `npm run bench -- [--quick] [--rounds N] [--seconds S] [--warmup S] [--connections N]
                       [--tool autocannon|wrk] [--only id,id] [--docs|--no-docs] [--render results.json]
                       [--baseline <checkout>]
  --quick      the quick scenarios, 2 rounds of 1 s, docs untouched (CI keeps the harness working)
  default      every scenario, 8 rounds of 4 s after 1 s of warm-up, docs/benchmarks.md rewritten
  --tool       the load generator; wrk when installed, else autocannon
  --render     rewrite docs/benchmarks.* from an earlier run's record (docs/benchmarks.json or
               bench/results/*.json), measuring nothing
  --baseline   another built checkout (git worktree add ../base <rev> && cd ../base && npm ci && npm run build)
               run as plant-store@baseline beside plant-store in each scenario that has it: an A/B in one run`;

export function parseOptions(args: string[], wrkInstalled: boolean): Options {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string', default: '50' },
      tool: { type: 'string' },
      only: { type: 'string', default: '' },
      docs: { type: 'boolean' },
      'no-docs': { type: 'boolean' },
      render: { type: 'string' },
      baseline: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const quick = values.quick;
  const number = (text: string | undefined, fallback: number, name: string) => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a number, not "${text}"`);
    return value;
  };
  const tool = values.tool ?? (wrkInstalled ? 'wrk' : 'autocannon');
  if (tool !== 'wrk' && tool !== 'autocannon') throw new Error(`--tool must be autocannon or wrk, not "${tool}"`);
  if (tool === 'wrk' && !wrkInstalled) throw new Error('--tool wrk: wrk is not installed');
  return {
    quick,
    rounds: Math.max(1, Math.round(number(values.rounds, quick ? 2 : 8, 'rounds'))),
    seconds: number(values.seconds, quick ? 1 : 4, 'seconds'),
    warmupSeconds: number(values.warmup, quick ? 0 : 1, 'warmup'),
    connections: Math.max(1, Math.round(number(values.connections, 50, 'connections'))),
    tool,
    only: values.only === '' ? [] : values.only.split(','),
    writeDocs: values['no-docs'] ? false : (values.docs ?? !quick),
    ...(values.render !== undefined && { render: values.render }),
    ...(values.baseline !== undefined && { baseline: values.baseline }),
  };
}
