// `plant-store backup`: a copy taken while the real service creates and deletes plants holds every write acknowledged
// before it began; it refuses, naming the cause, an existing file, a full disk and a read-only folder; PostgreSQL: pg_dump.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/app.js';
import { projectRoot } from '../helpers/paths.js';
import { cliCommand, finished, runCli, startServer } from '../helpers/process.js';
import { until } from '../helpers/until.js';

/** A SQLite file test: the PostgreSQL leg does not run it. */
const sqliteOnly = { skip: process.env.PLANT_STORE_TEST_STORE === 'postgres' && 'a SQLite file test' };

/** A database of about `megabytes` MiB for user `seed`, so that the copy takes many steps. */
async function seeded(path: string, megabytes: number): Promise<void> {
  await new SqliteStore(path).close(); // the schema, by the store's own migrations
  const db = new Database(path);
  const rows = megabytes * 4000;
  db.prepare(
    "WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < ?) INSERT INTO plants (owner, id, name) SELECT 'seed', v, printf('%.200c', 'x') FROM n",
  ).run(rows);
  db.close();
}

/** The ids of `owner`'s plants in the SQLite file at `path`. */
function idsIn(path: string, owner: string): Set<number> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return new Set(db.prepare('SELECT id FROM plants WHERE owner = ?').pluck().all(owner) as number[]);
  } finally {
    db.close();
  }
}

t.test('a backup taken while the service creates and deletes keeps every write acknowledged before it', sqliteOnly, async (t) => {
  const dir = tempDir(t);
  const env = { DATABASE_PATH: join(dir, 'plants.db'), DATABASE_URL: '', REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '0' };
  await seeded(env.DATABASE_PATH, 24);
  const token = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
  const server = await startServer(t, env);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  // Writers that never pause: creates, and deletes of every tenth plant once created.
  const created = new Set<number>();
  const deleted = new Set<number>();
  const failures: string[] = [];
  let next = 1;
  let writing = true;
  const writer = async () => {
    while (writing) {
      const id = next++;
      const answer = await fetch(`${server.url}/plants`, { method: 'POST', headers, body: JSON.stringify({ id, name: `plant ${id}` }) });
      if (answer.status !== 200) failures.push(`POST ${id}: ${answer.status}`);
      else created.add(id);
      if (id % 10 !== 0) continue;
      const gone = await fetch(`${server.url}/plants/${id}`, { method: 'DELETE', headers: { authorization: headers.authorization } });
      if (gone.status !== 204) failures.push(`DELETE ${id}: ${gone.status}`);
      else deleted.add(id);
    }
  };
  const writers = Array.from({ length: 8 }, writer);
  await until(() => created.size >= 200, 60_000, '200 creates');

  const target = join(dir, 'backups', 'plants-backup.db');
  mkdirSync(join(dir, 'backups'));
  const acknowledged = new Set(created);
  const deletedBefore = new Set(deleted);
  const backup = await runCli(['backup', target], env);
  const duringBackup = created.size - acknowledged.size;
  writing = false;
  await Promise.all(writers);

  t.equal(backup.code, 0, backup.stderr);
  t.ok(duringBackup > 0, `the service went on creating while the backup ran (${duringBackup} creates)`);
  t.same(failures, [], 'no write failed meanwhile (no 5xx)');
  const copied = idsIn(target, 'alice');
  // A plant deleted since (acknowledged after the backup began) may or may not be in it; every other one must.
  const kept = [...acknowledged].filter((id) => !deleted.has(id));
  t.same(
    kept.filter((id) => !copied.has(id)),
    [],
    `every plant acknowledged before the backup (and not deleted since) is in it: ${kept.length}`,
  );
  const back = [...deletedBefore].filter((id) => copied.has(id));
  t.same(back, [], 'no plant deleted before the backup is back');
  t.equal(idsIn(target, 'seed').size, 96_000, 'and the rest of the file');
  t.match(
    backup.stdout,
    new RegExp(`^backed up ${copied.size + 96_000} plants and 1 tokens \\(schema version 3, \\d+ bytes\\) to ${target}\\n$`),
  );
  t.match(backup.stderr, /copied 50% \(\d+ of \d+ MiB\)/, 'progress on a large file');
  t.same(readdirSync(join(dir, 'backups')), ['plants-backup.db'], 'one file: no -wal, no partial copy left');
  const copy = new Database(target, { readonly: true });
  t.equal(copy.pragma('journal_mode', { simple: true }), 'delete', 'complete alone');
  t.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
  copy.close();
  t.equal((await runCli(['check'], { ...env, DATABASE_PATH: target })).stdout, 'ok\n', 'plant-store check passes on it');
});

t.test('a backup killed half-way leaves no file under its name', sqliteOnly, async (t) => {
  const dir = tempDir(t);
  const env = { DATABASE_PATH: join(dir, 'plants.db'), DATABASE_URL: '' };
  await seeded(env.DATABASE_PATH, 24);
  mkdirSync(join(dir, 'backups'));
  const target = join(dir, 'backups', 'plants-backup.db');
  const [command, args] = cliCommand(['backup', target]);
  const child = spawn(command, args, { cwd: projectRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let said = '';
  child.stderr.on('data', (chunk) => {
    said += String(chunk);
    if (/copied [1-9]0%/.test(said)) child.kill('SIGKILL'); // a crash, mid-copy
  });
  const { signal } = await finished(child);
  t.equal(signal, 'SIGKILL', 'killed while copying');
  t.notOk(existsSync(target), 'nothing under the name');
  t.match(readdirSync(join(dir, 'backups')), [/^\.plants-backup\.db\.\d+\.partial/], 'only the partial copy, named as such');
  const again = await runCli(['backup', target], env);
  t.equal(again.code, 0, 'the next backup is not in its way');
});

t.test('backup refuses, naming the cause, and changes nothing', sqliteOnly, async (t) => {
  const dir = tempDir(t);
  const env = { DATABASE_PATH: join(dir, 'plants.db'), DATABASE_URL: '' };
  t.equal((await runCli(['token', 'create', 'alice'], env)).code, 0);
  const target = join(dir, 'backup.db');
  t.equal((await runCli(['backup', target], env)).code, 0);

  const again = await runCli(['backup', target], env);
  t.equal(again.code, 1);
  t.match(again.stderr, `${target} already exists: name a new file, or add --overwrite to replace it`);
  t.equal((await runCli(['token', 'create', 'bob'], env)).code, 0);
  const replaced = await runCli(['backup', target, '--overwrite'], env);
  t.equal(replaced.code, 0, replaced.stderr);
  t.match(replaced.stdout, /0 plants and 2 tokens/, '--overwrite replaces it');

  const nowhere = await runCli(['backup', join(dir, 'no', 'such', 'folder.db')], env);
  t.equal(nowhere.code, 1);
  t.match(nowhere.stderr, `the folder ${join(dir, 'no', 'such')} does not exist`);
  const itself = await runCli(['backup', env.DATABASE_PATH], env);
  t.match(itself.stderr, /the backup would replace the database itself/);
  const noDatabase = await runCli(['backup', join(dir, 'x.db')], { ...env, DATABASE_PATH: join(dir, 'none.db') });
  t.equal(noDatabase.code, 1);
  t.match(noDatabase.stderr, `there is no SQLite database at ${join(dir, 'none.db')}`);
  t.notOk(existsSync(join(dir, 'none.db')), 'no database was created');
  // A flag given twice is refused, as every command's option is (src/cli/usage-error.ts).
  for (const args of [
    ['backup'],
    ['backup', 'a.db', 'b.db'],
    ['backup', 'a.db', '--force'],
    ['backup', 'a.db', '--overwrite', '--overwrite'],
  ]) {
    const usage = await runCli(args, env);
    t.equal(usage.code, 2, args.join(' '));
    t.match(usage.stderr, /Usage:/);
  }
});

t.test('on PostgreSQL, backup and restore say to use pg_dump and pg_restore, with the command', async (t) => {
  const env = { DATABASE_URL: 'postgres://app:hunter2@127.0.0.1:5432/plants' };
  const backup = await runCli(['backup', 'plants.dump'], env);
  t.equal(backup.code, 1);
  t.match(backup.stderr, "use pg_dump:\n  pg_dump --format=custom --file='plants.dump' 'postgres://app@127.0.0.1:5432/plants'\n");
  const restore = await runCli(['restore', 'plants.dump'], env);
  t.equal(restore.code, 1);
  t.match(restore.stderr, /use pg_restore:\n {2}pg_restore .*--dbname='postgres:\/\/app@127.0.0.1:5432\/plants' 'plants.dump'\n/);
  t.notMatch(backup.stderr + restore.stderr, /hunter2/, 'never the password');
});

function mount(dir: string, options: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]}); needs root`;
  }
}

function cannotMount(): string | undefined {
  const probe = mkdtempSync(join(tmpdir(), 'plant-store-mount-'));
  try {
    const refused = mount(probe, 'size=1m');
    if (refused === undefined) execFileSync('umount', [probe]);
    return refused;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const mountSkip = sqliteOnly.skip || cannotMount();

t.test('a full disk and a read-only folder: exit 1 naming the cause, no file left under the name', { skip: mountSkip }, async (t) => {
  const dir = tempDir(t);
  const env = { DATABASE_PATH: join(dir, 'plants.db'), DATABASE_URL: '' };
  await seeded(env.DATABASE_PATH, 4);

  const full = join(dir, 'full');
  mkdirSync(full);
  t.equal(mount(full, 'size=2m'), undefined);
  t.teardown(() => execFileSync('umount', ['-l', full]));
  const { bavail, bsize } = statfsSync(full);
  writeFileSync(join(full, 'filler'), Buffer.alloc(Math.max(0, bavail * bsize - 256 * 1024)));
  const noRoom = await runCli(['backup', join(full, 'backup.db')], env);
  t.equal(noRoom.code, 1);
  t.match(noRoom.stderr, `cannot write the backup ${join(full, 'backup.db')}: no space left on the disk holding ${full} (`);
  t.same(readdirSync(full), ['filler'], 'no backup and no partial copy left');

  const readOnly = join(dir, 'read-only');
  mkdirSync(readOnly);
  t.equal(mount(readOnly, 'size=1m,ro'), undefined);
  t.teardown(() => execFileSync('umount', ['-l', readOnly]));
  const refused = await runCli(['backup', join(readOnly, 'backup.db')], env);
  t.equal(refused.code, 1);
  t.match(refused.stderr, `cannot write the backup ${join(readOnly, 'backup.db')}: ${readOnly} is on a read-only file system (EROFS)`);
});
