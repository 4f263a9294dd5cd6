// A full disk under the SQLite file (a real 2 MiB tmpfs): writes answer 503 with Retry-After and
// the Error shape, one error names the file, /readyz is 503 while there is no room, reads go on,
// and once room returns writes work again without a restart; a start on a full disk names the file and the cause.
// Needs root to mount; skips otherwise.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { bearer, inject, tempDir, tokenFor } from '../helpers/app.js';
import { freePort, runCli } from '../helpers/process.js';

function mountTmpfs(dir: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]}); the disk-full test needs root`;
  }
}

/** Why this test cannot run here, if it cannot: a tmpfs is mounted and unmounted once to find out. */
function cannotMount(): string | undefined {
  const probe = mkdtempSync(join(tmpdir(), 'plant-store-mount-'));
  try {
    const refused = mountTmpfs(probe);
    if (refused === undefined) execFileSync('umount', [probe]);
    return refused;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const skip = process.env.PLANT_STORE_TEST_STORE === 'postgres' ? 'a SQLite file test' : cannotMount();

t.test('a full disk: 503 and Retry-After, one error naming the file, /readyz 503, reads go on, writes come back', { skip }, async (t) => {
  const dir = join(tempDir(t), 'disk');
  mkdirSync(dir);
  const refused = mountTmpfs(dir);
  if (refused !== undefined) return void t.fail(refused);
  t.teardown(() => execFileSync('umount', ['-l', dir]));
  const path = join(dir, 'plants.db');
  const lines: string[] = [];
  const app = await buildApp(
    { ...loadConfig({}), logLevel: 'info', databasePath: path, rateLimitPerMinute: 0 },
    { logStream: { write: (line) => void lines.push(line) } },
  );
  t.teardown(() => app.close());
  const token = await tokenFor(app, 'alice');
  const create = (id: number) =>
    inject(t, app, { method: 'POST', url: '/plants', headers: bearer(token), payload: { id, name: `plant ${id} ${'x'.repeat(180)}` } });
  t.equal((await create(1)).status, 200);

  // Leave a little room, then write until it is gone.
  const filler = join(dir, 'filler');
  const { bavail, bsize } = statfsSync(dir);
  writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - 96 * 1024)));
  let id = 2;
  let full;
  for (; id < 5000; id++) {
    const answer = await create(id);
    if (answer.status !== 200) {
      full = answer;
      break;
    }
  }
  if (full === undefined) return void t.fail(`no create was refused after ${id - 2} more`);
  t.pass(`a create was refused once the disk filled (after ${id - 2} more)`);
  t.equal(full.status, 503);
  t.match(full.headers['retry-after'], /^\d+$/);
  t.match(full.json(), { error: 503, message: /disk is full; nothing was changed/ });
  t.equal((await create(id + 1)).status, 503, 'still full');
  const errors = lines.map((line) => JSON.parse(line)).filter((line) => line.level === 50 && String(line.msg).includes(path));
  t.equal(errors.length, 1, 'one error names the file, however many writes are refused');
  t.match(errors[0]?.msg, /is full/);
  const ready = await inject(t, app, { url: '/readyz' });
  t.equal(ready.status, 503, '/readyz 503 while there is no room');
  t.match(ready.json(), { error: 503, message: /disk is full/ }, '/readyz says the disk is full, not that the database is unreachable');
  t.equal((await inject(t, app, { url: '/healthz' })).status, 200, '/healthz stays 200');
  const list = await inject(t, app, { url: '/plants?limit=1000', headers: bearer(token) });
  t.equal(list.status, 200, 'reads go on');
  t.equal(list.json().length, id - 1, 'every acknowledged plant is there, and no refused one');

  rmSync(filler);
  t.equal((await inject(t, app, { url: '/readyz' })).status, 200, '/readyz 200 once there is room');
  t.equal((await create(id)).status, 200, 'writes work again, without a restart');
  t.ok(
    lines.some((line) => String(JSON.parse(line).msg).includes('succeed again')),
    'the recovery is logged',
  );
});

t.test('a start on a full disk refuses, naming the file and the cause (no space), not only "disk I/O error"', { skip }, async (t) => {
  const dir = join(tempDir(t), 'disk');
  mkdirSync(dir);
  const refused = mountTmpfs(dir);
  if (refused !== undefined) return void t.fail(refused);
  t.teardown(() => execFileSync('umount', ['-l', dir]));
  const { bavail, bsize } = statfsSync(dir);
  writeFileSync(join(dir, 'filler'), Buffer.alloc(bavail * bsize));
  t.equal(statfsSync(dir).bavail, 0, 'the disk is full');
  const path = join(dir, 'plants.db');
  const env = { DATABASE_PATH: path, DATABASE_URL: '', HOST: '127.0.0.1', PORT: String(await freePort()) };
  for (const args of [['serve'], ['token', 'create', 'alice']]) {
    const result = await runCli(args, env);
    t.equal(result.code, 1, `${args.join(' ')}: exit 1`);
    t.match(result.stderr, `cannot open the SQLite database ${path}: no space left on the disk holding it`, result.stderr.trim());
    t.equal(result.stdout.includes('pst_'), false, 'no token');
  }
});
