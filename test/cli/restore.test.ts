// `plant-store restore`: refuses while the service has the database open, checks the backup first, moves the database
// and a crashed run's -wal/-shm aside (never deleting them), after which `check` passes and the service serves exactly
// the backup. A start over a backup copied by hand beside a stale -wal names that cause.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { fetchChecked, tempDir } from '../helpers/app.js';
import { cliCommand, finished, runCli, startServer, type RunningServer } from '../helpers/process.js';

/** A SQLite file test: the PostgreSQL leg does not run it. */
const sqliteOnly = { skip: process.env.PLANT_STORE_TEST_STORE === 'postgres' && 'a SQLite file test' };

const json = { 'content-type': 'application/json' };
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function create(t: Test, server: RunningServer, token: string, ids: number[]): Promise<void> {
  for (const id of ids) {
    const reply = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { ...auth(token), ...json },
      body: JSON.stringify({ id, name: `plant ${id}` }),
    });
    if (reply.status !== 200) t.fail(`POST ${id}: ${reply.status}`);
  }
}

/** The ids the service lists for `token`, all pages. */
async function listed(t: Test, server: RunningServer, token: string): Promise<number[]> {
  const reply = await fetchChecked(t, server.url, '/plants?limit=1000', {
    headers: { ...auth(token), accept: 'application/vnd.plant-store.listing+json' },
  });
  t.equal(reply.status, 200);
  return (reply.json() as Array<{ id: number }>).map((plant) => plant.id);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

/**
 * A crashed run's -wal that is not the backup's: plants committed and checkpointed after the backup, then a writer
 * that commits more in batches without a checkpoint and crashes (SIGKILL), leaving its -wal (about 5 MB).
 */
async function crashedRun(path: string): Promise<void> {
  const script = `
    const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
    const plants = (owner, from, to) =>
      "WITH RECURSIVE n(v) AS (SELECT " + from + " UNION ALL SELECT v + 1 FROM n WHERE v < " + to + ") " +
      "INSERT INTO plants (owner, id, name) SELECT '" + owner + "', v, printf('%.150c', 'x') FROM n";
    const before = new Database(process.argv[1]);
    before.exec(plants('later', 1, 5000));
    before.close(); // the last connection: checkpointed into the file
    const db = new Database(process.argv[1]);
    db.pragma('wal_autocheckpoint = 0');
    for (let batch = 0; batch < 20; batch++) db.exec(plants('crash', batch * 1000 + 1, batch * 1000 + 1000));
    process.stdout.write('written\\n');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script, path], { stdio: ['ignore', 'pipe', 'pipe'] });
  const { signal, stderr } = await finished(child, (out) => {
    if (out.includes('written')) child.kill('SIGKILL');
  });
  if (signal !== 'SIGKILL') throw new Error(`the writer did not crash as planned: ${stderr}`);
}

/** `serve`'s exit; killed (and so failing the test) if it starts listening instead. */
async function failedStart(env: Record<string, string>) {
  const [command, args] = cliCommand(['serve']);
  const child = spawn(command, args, { env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  return finished(child, (out) => {
    if (out.includes('listening')) child.kill('SIGKILL');
  });
}

t.test('restore: refused while the service runs; then the backup in place, the old files aside, served exactly', sqliteOnly, async (t) => {
  const dir = tempDir(t);
  const env = { DATABASE_PATH: join(dir, 'plants.db'), DATABASE_URL: '', REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '0' };
  const alice = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
  let server = await startServer(t, env);
  await create(t, server, alice, range(1, 50));
  const backup = join(dir, 'backup.db');
  t.equal((await runCli(['backup', backup], env)).code, 0);
  // After the backup: more plants, deletions, another user's token.
  await create(t, server, alice, range(51, 100));
  for (const id of range(1, 10)) await fetch(`${server.url}/plants/${id}`, { method: 'DELETE', headers: auth(alice) });
  const bob = (await runCli(['token', 'create', 'bob'], env)).stdout.trim();

  const files = readdirSync(dir).sort();
  const refused = await runCli(['restore', backup], env);
  t.equal(refused.code, 1);
  t.match(
    refused.stderr,
    new RegExp(
      `${env.DATABASE_PATH} is open in another process \\(process ${server.child.pid} holds a lock on ${env.DATABASE_PATH}.*/proc/locks`,
    ),
    'says who has it open, and how it knows',
  );
  t.match(refused.stderr, /stop the service .* Nothing was changed/);
  t.same(readdirSync(dir).sort(), files, 'nothing was moved');

  // The service crashes: its -wal stays, with the writes made since the backup.
  server.child.kill('SIGKILL');
  await server.exit;
  t.ok(statSync(`${env.DATABASE_PATH}-wal`).size > 0, 'a -wal with writes in it is left');

  const restored = await runCli(['restore', backup], env);
  t.equal(restored.code, 0, restored.stderr);
  t.match(restored.stderr, /not in use: no process holds a lock on it or its -wal\/-shm \(\/proc\/locks\)/);
  const aside = [...restored.stdout.matchAll(/^moved (\S+) aside to (\S+)$/gm)].map(([, from, to]) => [from, to] as const);
  t.same(
    aside.map(([from]) => from),
    ['', '-wal', '-shm'].map((suffix) => `${env.DATABASE_PATH}${suffix}`),
    'the database, its -wal and -shm moved aside',
  );
  t.match(restored.stdout, `restored 50 plants and 1 tokens (schema version 3) to ${env.DATABASE_PATH}\n`);
  t.equal((await runCli(['check'], env)).stdout, 'ok\n', 'check passes');

  // What was moved aside is whole, and still holds the writes made after the backup.
  const old = new Database(aside[0]![1], { readonly: true });
  t.equal(old.prepare("SELECT count(*) FROM plants WHERE owner = 'alice'").pluck().get(), 90, 'the old database is kept, with its -wal');
  old.close();

  server = await startServer(t, env);
  t.same(await listed(t, server, alice), range(1, 50), "exactly the backup's plants");
  t.equal((await fetchChecked(t, server.url, '/plants', { headers: auth(bob) })).status, 401, 'a token made after the backup is not in it');
  const tokens = await runCli(['token', 'list'], env);
  t.match(tokens.stdout, /^ID\tUSER.*\n1\talice\t[^\n]+\n$/, "exactly the backup's tokens");
});

t.test('restore checks the backup first: a damaged file, another SQLite file, a newer schema', sqliteOnly, async (t) => {
  const dir = tempDir(t);
  const env = { DATABASE_PATH: join(dir, 'plants.db'), DATABASE_URL: '' };
  t.equal((await runCli(['token', 'create', 'alice'], env)).code, 0);
  const good = join(dir, 'good.db');
  t.equal((await runCli(['backup', good], env)).code, 0);

  const garbage = join(dir, 'garbage.db');
  writeFileSync(garbage, 'not a database at all, but long enough to have a header of sorts'.repeat(100));
  const other = join(dir, 'other.db');
  new Database(other).exec('CREATE TABLE notes (text TEXT)');
  const newer = join(dir, 'newer.db');
  copyFileSync(good, newer);
  new Database(newer).pragma('user_version = 99');
  const cases = [
    [garbage, /file is not a database/],
    [other, /not a Plant Store database/],
    [newer, /schema version 99, newer than this Plant Store \(3\); upgrade Plant Store/],
    [join(dir, 'missing.db'), /there is no backup at/],
  ] as const;
  for (const [file, reason] of cases) {
    const before = readdirSync(dir).sort();
    const refused = await runCli(['restore', file], env);
    t.equal(refused.code, 1, file);
    t.match(refused.stderr, reason, `${file}: ${refused.stderr.split('\n').at(-2)}`);
    t.same(readdirSync(dir).sort(), before, 'nothing was changed');
  }
  t.equal((await runCli(['restore'], env)).code, 2, 'a file is required');
});

t.test(
  'a backup copied by hand beside a crashed run\'s -wal: the start names the stale -wal, not "restore a backup"',
  sqliteOnly,
  async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_PATH: join(dir, 'plants.db'), DATABASE_URL: '', REDIS_URL: '' };
    const alice = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
    const backup = join(dir, 'backup.db');
    t.equal((await runCli(['backup', backup], env)).code, 0);
    await crashedRun(env.DATABASE_PATH);
    t.ok(statSync(`${env.DATABASE_PATH}-wal`).size > 1024 * 1024, 'a large -wal is left');

    // The operator's mistake the issue measured: the good backup copied over the file, the -wal left beside it.
    copyFileSync(backup, env.DATABASE_PATH);
    const start = await failedStart(env);
    t.equal(start.code, 1, 'the start fails');
    t.match(start.stderr, `reads as damaged (`);
    t.match(start.stderr, `only with the ${env.DATABASE_PATH}-wal beside it: the file alone is whole`);
    t.match(start.stderr, `move ${env.DATABASE_PATH}-wal and ${env.DATABASE_PATH}-shm aside`);
    t.notMatch(start.stderr, /restore your latest backup/, 'not the advice the operator just followed');
    const check = await runCli(['check'], env);
    t.equal(check.code, 1, 'check finds the problems');
    t.match(check.stderr, `only with the ${env.DATABASE_PATH}-wal beside it`, 'and names the same cause');
    t.same(
      readdirSync(dir).filter((name) => name.includes('wal-check')),
      [],
      'the check left nothing behind',
    );

    // The fix it names works.
    renameSync(`${env.DATABASE_PATH}-wal`, join(dir, 'stale-wal'));
    if (existsSync(`${env.DATABASE_PATH}-shm`)) renameSync(`${env.DATABASE_PATH}-shm`, join(dir, 'stale-shm'));
    const server = await startServer(t, env);
    t.equal((await fetchChecked(t, server.url, '/plants', { headers: auth(alice) })).status, 200);
  },
);
