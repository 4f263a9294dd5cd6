// Migrations are visible: each one applied is a JSON log line at start (from, to, ms) and a line of `plant-store migrate`;
// nothing pending says so with the version; `migrate --status` changes nothing; SQLite is backed up beside the file first.
import { existsSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { migrations as sqliteMigrations } from '../../src/store/sqlite/migrations.js';
import { migrations as postgresMigrations } from '../../src/store/postgres/migrations.js';
import { fetchChecked, tempDir } from '../helpers/app.js';
import { runCli, startServer } from '../helpers/process.js';
import { freshStore, onlyOn, storeKind } from '../helpers/store-under-test.js';

const latest = storeKind === 'sqlite' ? sqliteMigrations.length : postgresMigrations.length;

/** A SQLite file as Plant Store's schema 2 left it (before tokens expired): a token and 3 plants of alice's. */
function schemaTwo(path: string): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  for (const migration of sqliteMigrations.slice(0, 2)) db.exec(migration);
  db.pragma('user_version = 2');
  db.prepare("INSERT INTO tokens (user, hash, created_at) VALUES ('alice', ?, '2026-01-01T00:00:00.000Z')").run(Buffer.alloc(32, 1));
  for (const id of [1, 2, 3]) db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, 'fern')").run(id);
  db.close();
}

function versionOf(path: string): number {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

t.test('migrate says each migration it applied, then that there is nothing to apply; --status changes nothing', async (t) => {
  const { env } = await freshStore(t);
  const status = await runCli(['migrate', '--status'], env);
  t.equal(status.code, 0, status.stderr);
  t.equal(
    status.stdout,
    `current version: 0${storeKind === 'sqlite' ? ' (no database file yet)' : ''}\nlatest version: ${latest}\n${latest} pending: run plant-store migrate\n`,
  );
  if (storeKind === 'sqlite') t.notOk(existsSync(env.DATABASE_PATH!), '--status created no file');

  const migrated = await runCli(['migrate'], env);
  t.equal(migrated.code, 0, migrated.stderr);
  const database = storeKind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const lines = migrated.stdout.trim().split('\n');
  t.equal(lines.length, latest, 'one line a migration');
  lines.forEach((line, from) =>
    t.match(line, new RegExp(`^applied the ${database} schema migration from version ${from} to ${from + 1} in [\\d.]+ ms$`)),
  );
  const again = await runCli(['migrate'], env);
  t.equal(again.code, 0);
  t.equal(again.stdout, `nothing to apply, at version ${latest}\n`);
  t.equal((await runCli(['migrate', '--status'], env)).stdout, `current version: ${latest}\nlatest version: ${latest}\nup to date\n`);
  for (const args of [
    ['migrate', 'now'],
    ['migrate', '--dry-run'],
    ['migrate', '--status', '--status'],
  ]) {
    const usage = await runCli(args, env);
    t.equal(usage.code, 2, args.join(' '));
    t.match(usage.stderr, /Usage:/);
  }
});

t.test('a start on a new database logs each migration it applied, in the JSON log', async (t) => {
  const { env } = await freshStore(t);
  const server = await startServer(t, env);
  server.child.kill('SIGTERM');
  const { stdout } = await server.exit;
  const steps = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; migration?: { from: number; to: number; ms: number } })
    .filter((line) => line.migration !== undefined);
  t.same(
    steps.map((line) => [line.migration!.from, line.migration!.to, typeof line.migration!.ms, line.level]),
    Array.from({ length: latest }, (_, from) => [from, from + 1, 'number', 30]),
    'from, to and milliseconds of each, at info',
  );
});

t.test('an upgrade from SQLite schema 2: backed up beside the file first, each step logged at start', onlyOn('sqlite'), async (t) => {
  const dir = tempDir(t);
  const env = { DATABASE_PATH: join(dir, 'plants.db'), DATABASE_URL: '', REDIS_URL: '' };
  schemaTwo(env.DATABASE_PATH);

  const status = await runCli(['migrate', '--status'], env);
  t.equal(status.stdout, `current version: 2\nlatest version: ${latest}\n${latest - 2} pending: run plant-store migrate\n`);
  t.equal(versionOf(env.DATABASE_PATH), 2, '--status changed nothing');
  t.same(
    readdirSync(dir).filter((name) => name.endsWith('.backup')),
    [],
    'and backed nothing up',
  );

  const server = await startServer(t, env);
  const token = (await runCli(['token', 'create', 'bob'], env)).stdout.trim();
  t.equal((await fetchChecked(t, server.url, '/plants', { headers: { authorization: `Bearer ${token}` } })).status, 200);
  server.child.kill('SIGTERM');
  const { stdout } = await server.exit;
  const log = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; migration?: object; backup?: { path: string } });
  const backupPath = `${env.DATABASE_PATH}.schema-2.backup`;
  const backedUp = log.find((line) => line.backup !== undefined);
  t.match(backedUp, {
    backup: { path: backupPath, schemaVersion: 2, plants: 3, tokens: 1 },
    msg: `backed up the database before migrating it from schema version 2: ${backupPath} (3 plants, 1 tokens, 16384 bytes)`,
  });
  const steps = log.filter((line) => line.migration !== undefined);
  t.match(steps, [
    { migration: { from: 2, to: 3, ms: Number }, msg: /^applied the SQLite schema migration from version 2 to 3 in [\d.]+ ms$/ },
  ]);
  t.ok(log.indexOf(backedUp!) < log.indexOf(steps[0]!), 'the backup before the migration');
  t.equal(versionOf(env.DATABASE_PATH), latest);
  t.equal(versionOf(backupPath), 2, 'the backup is the file as it was');
});

t.test('plant-store migrate on SQLite schema 2: says where the backup went; an earlier one is kept', onlyOn('sqlite'), async (t) => {
  const dir = tempDir(t);
  const env = { DATABASE_PATH: join(dir, 'plants.db'), DATABASE_URL: '' };
  const file = env.DATABASE_PATH;
  const said = (backup: string) =>
    new RegExp(
      `^backed up the database before migrating it from schema version 2: (${backup}) \\(3 plants, 1 tokens, \\d+ bytes\\)\\n` +
        `applied the SQLite schema migration from version 2 to 3 in [\\d.]+ ms\\n$`,
    );
  schemaTwo(file);
  const first = await runCli(['migrate'], env);
  t.equal(first.code, 0, first.stderr);
  t.match(first.stdout, said(`${file}.schema-2.backup`));
  // Another schema-2 file at the same path: the first backup stays, the second is named with the time.
  renameSync(file, join(dir, 'migrated.db'));
  schemaTwo(file);
  const second = await runCli(['migrate'], env);
  t.match(second.stdout, said(`${file}.schema-2.\\d{8}T\\d{9}Z.backup`));
  const backups = readdirSync(dir).filter((name) => name.endsWith('.backup'));
  t.equal(backups.length, 2, backups.join(', '));
  for (const backup of backups) t.equal(versionOf(join(dir, backup)), 2);
});
