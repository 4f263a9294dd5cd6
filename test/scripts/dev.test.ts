// `npm run dev` in a copy of the project: it starts and serves, restarts on a save in src/, and on a save of
// openapi.yaml generates generated/ again before it restarts, so the service serves the contract as saved.
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { projectRoot } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

t.test('npm run dev serves, and restarts on a save in src/ or openapi.yaml (generating again)', async (t) => {
  const copy = tempDir(t);
  for (const path of ['src', 'scripts', 'generated', 'openapi.yaml', 'package.json', join('clients', 'conformance', 'src')])
    cpSync(join(projectRoot, path), join(copy, path), { recursive: true });
  symlinkSync(join(projectRoot, 'node_modules'), join(copy, 'node_modules'));

  const dev = spawn('npm', ['run', 'dev'], {
    cwd: copy,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', BOOTSTRAP_TOKEN: 'off', DATABASE_PATH: join(copy, 'plants.db') },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: npm, the watcher and the server it runs are stopped together
  });
  t.teardown(() => {
    try {
      process.kill(-dev.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  let output = '';
  dev.stdout.on('data', (chunk) => (output += String(chunk)));
  dev.stderr.on('data', (chunk) => (output += String(chunk)));

  /** Each start of the server: its pid and its address, from the "listening" line it logs. */
  const starts = () =>
    [...output.matchAll(/^\{.*"pid":(\d+).*"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"\}$/gm)].map(([, pid, url]) => ({
      pid,
      url: url!,
    }));
  /** The server that answers once the restarts settle: the latest start, asked until it answers. */
  const serving = async (what: string) => {
    let answered: ReturnType<typeof starts>[number] | undefined;
    await until(
      async () => {
        const latest = starts().at(-1);
        if (latest === undefined) return false;
        const status = await fetch(`${latest.url}/healthz`).then(
          (response) => response.status,
          () => 0,
        );
        if (status === 200) answered = latest;
        return status === 200;
      },
      120_000,
      `${what}: ${output}`,
    );
    return answered!;
  };
  /**
   * Saves until the server restarts: a save that lands while the server is still starting may find its watch not
   * yet set (a second save, as a person would make, is seen).
   */
  const saveUntilRestart = async (save: () => void, what: string) => {
    const before = starts().length;
    for (const started = Date.now(); starts().length === before;) {
      if (Date.now() - started > 120_000) throw new Error(`${what}: no restart within 120000 ms: ${output}`);
      save();
      await until(() => starts().length > before, 5_000).catch(() => undefined);
    }
    return serving(what);
  };

  const first = await serving('the first start');
  t.pass('it serves');

  const health = join(copy, 'src', 'routes', 'health.ts');
  const second = await saveUntilRestart(() => writeFileSync(health, `${readFileSync(health, 'utf8')}// saved again\n`), 'a save in src/');
  t.not(second.pid, first.pid, 'a new process serves after a save in src/');

  const contract = join(copy, 'openapi.yaml');
  const yaml = readFileSync(contract, 'utf8');
  const title = /^ {2}title: (.*)$/m.exec(yaml)![1]!;
  // Saved as many editors save: a new file renamed over the old one (the save above wrote in place).
  const third = await saveUntilRestart(() => {
    writeFileSync(`${contract}.saving`, yaml.replace(`  title: ${title}`, '  title: Plant Store, as saved just now'));
    renameSync(`${contract}.saving`, contract);
  }, 'a save of openapi.yaml');
  t.match(output, /wrote generated\/types\.d\.ts, generated\/openapi\.ts, generated\/schemas\.ts/, 'generated/ was written again');
  const served = (await (await fetch(`${third.url}/openapi.json`)).json()) as { info: { title: string } };
  t.equal(served.info.title, 'Plant Store, as saved just now', 'the service serves the contract as saved');
});
