// The SQLite store on real files: WAL, migrations of older files, writes sharing a commit.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import t from 'tap';
import { hashToken } from '../../../src/auth/tokens.js';
import { encodeCursor } from '../../../src/pagination/cursor.js';
import { migrations } from '../../../src/store/sqlite/migrations.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/app.js';
import { countCommits } from './commits.js';
import { projectRoot } from '../../helpers/paths.js';

function openStore(t: Parameters<typeof tempDir>[0], path = join(tempDir(t), 'nested', 'folders', 'plants.db')) {
  const store = new SqliteStore(path);
  t.teardown(() => store.close());
  return { store, path };
}

/** A pragma of the file, read on a connection of its own. */
function filePragma(path: string, name: string): unknown {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma(name, { simple: true });
  } finally {
    db.close();
  }
}

t.test('a new file is created with its folders, in WAL mode, at the latest schema', async (t) => {
  const { path } = openStore(t);
  t.equal(filePragma(path, 'journal_mode'), 'wal');
  t.equal(filePragma(path, 'user_version'), migrations.length);
});

t.test('a file from an older version is upgraded in place, keeping its plants', async (t) => {
  const path = join(tempDir(t), 'old.db');
  const old = new Database(path);
  old.exec(migrations[0]!);
  old.pragma('user_version = 1');
  old.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?)').run('alice', 9223372036854775807n, 'Old plant', null);
  old.close();

  const { store } = openStore(t, path);
  t.equal(filePragma(path, 'user_version'), migrations.length);
  t.same(await store.forRequest().listPlants('alice', undefined, 10), { json: '[{"name":"Old plant"}]' });
  t.equal(await store.countTokens(), 0, 'the tokens table was added');
});

t.test('a file of schema 2 gains expiry and last use in place; its tokens keep working and never expire', async (t) => {
  const path = join(tempDir(t), 'schema2.db');
  const old = new Database(path);
  old.exec(migrations[0]!);
  old.exec(migrations[1]!);
  old.pragma('user_version = 2');
  const token = `pst_${'B'.repeat(43)}`;
  const insert = old.prepare('INSERT INTO tokens (user, hash, created_at, revoked_at) VALUES (?, ?, ?, ?)');
  insert.run('alice', Buffer.from(hashToken(token), 'base64'), '2024-01-02T03:04:05.678Z', null);
  insert.run('bob', Buffer.alloc(32, 1), '2024-01-03T00:00:00.000Z', '2024-02-01T00:00:00.000Z');
  old.prepare('INSERT INTO plants (owner, id, name) VALUES (?, ?, ?)').run('alice', 1, 'Kept');
  old.close();

  const { store } = openStore(t, path);
  t.equal(filePragma(path, 'user_version'), migrations.length);
  t.same(await store.listTokens(), [
    { id: 1, user: 'alice', createdAt: '2024-01-02T03:04:05.678Z', expiresAt: null, lastUsedAt: null, revokedAt: null, expired: false },
    {
      id: 2,
      user: 'bob',
      createdAt: '2024-01-03T00:00:00.000Z',
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: '2024-02-01T00:00:00.000Z',
      expired: false,
    },
  ]);
  t.same(await store.forRequest().findToken(hashToken(token)), { tokenId: 1, user: 'alice' }, 'the old token still works');
  t.same(await store.forRequest().listPlants('alice', undefined, 10), { json: '[{"name":"Kept"}]' });
  await store.close();
  const reader = new Database(path, { readonly: true });
  t.match(
    reader.prepare('SELECT last_used_at FROM tokens WHERE id = 1').pluck().get(),
    /^\d{4}-\d\d-\d\dT/,
    'its use was written on close',
  );
  reader.close();
});

t.test('a file from a newer version is refused, not touched', async (t) => {
  const path = join(tempDir(t), 'new.db');
  const future = new Database(path);
  future.pragma(`user_version = ${migrations.length + 1}`);
  future.close();
  t.throws(() => new SqliteStore(path), /newer than this Plant Store/);
});

t.test('an upgrade that fails leaves the file as it was: its version, its tables and its plants', async (t) => {
  const path = join(tempDir(t), 'stray.db');
  const old = new Database(path);
  old.exec(migrations[0]!);
  old.pragma('user_version = 1');
  old.exec('CREATE TABLE tokens (note TEXT)'); // not this schema's: the next migration's CREATE TABLE fails
  old.prepare('INSERT INTO plants (owner, id, name) VALUES (?, ?, ?)').run('alice', 1, 'Kept');
  old.close();

  t.throws(() => new SqliteStore(path), /table tokens already exists/);
  const db = new Database(path, { readonly: true });
  t.teardown(() => db.close());
  t.equal(db.pragma('user_version', { simple: true }), 1, 'no migration recorded');
  t.same(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('tokens'), ['note'], 'the stray table untouched');
  t.same(db.prepare('SELECT owner, id, name FROM plants').all(), [{ owner: 'alice', id: 1, name: 'Kept' }]);
});

t.test('processes opening one new file at once apply each migration once', async (t) => {
  const path = join(tempDir(t), 'shared.db');
  const storeModule = pathToFileURL(join(projectRoot, 'src', 'store', 'sqlite', 'sqlite-store.ts')).href;
  // A barrier, not a fixed pause: each process loads the store, says so, and opens the file when
  // told; it is told once all four are ready, so they open it together.
  const script = `const { SqliteStore } = await import(${JSON.stringify(storeModule)}); process.stdout.write('ready\\n'); process.stdin.once('data', () => { new SqliteStore(process.argv[1]).close(); process.exit(0); });`;
  const children = Array.from({ length: 4 }, () =>
    spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, path], { stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  const exits = children.map((child) => {
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    return new Promise<string>((resolve) => child.on('close', (code) => resolve(`${code} ${stderr.trim()}`)));
  });
  await Promise.all(children.map((child) => once(child.stdout, 'data')));
  for (const child of children) child.stdin.end('go\n');
  t.same(await Promise.all(exits), ['0 ', '0 ', '0 ', '0 '], 'every process opened the store');
  const db = new Database(path, { readonly: true });
  t.equal(db.pragma('user_version', { simple: true }), migrations.length);
  db.close();
});

t.test('concurrent writes share one commit, and each outcome is its own', async (t) => {
  const { store, path } = openStore(t);
  const commits = countCommits(t);
  const results = await Promise.all([
    store.forRequest().addPlant('alice', { id: 1n, name: 'a' }),
    store.forRequest().addPlant('alice', { id: 1n, name: 'b' }),
    store.forRequest().addPlant('alice', { id: 1n, name: 'a' }),
    store.forRequest().addPlant('bob', { id: 1n, name: 'b' }),
    store.forRequest().deletePlant('alice', 99n),
    ...Array.from({ length: 50 }, (_, i) => store.forRequest().addPlant('carol', { id: BigInt(i), name: `c${i}`, tag: 't' })),
  ]);
  t.same(results.slice(0, 5), ['created', 'conflict', 'unchanged', 'created', false]);
  t.equal(commits.count, 1, '55 writes, one transaction');
  // Answered only after commit: another connection already sees every write.
  const reader = new Database(path, { readonly: true });
  t.equal(reader.prepare('SELECT count(*) FROM plants').pluck().get(), 52);
  reader.close();
});

t.test('pages continue after the last id of the previous page', async (t) => {
  const { store } = openStore(t);
  await store.forRequest().addPlant('alice', { id: 1n, name: 'a' });
  t.equal(await store.forRequest().addPlant('alice', { id: 2n, name: 'b' }), 'created');
  t.same(JSON.parse((await store.forRequest().listPlants('alice', undefined, 10)).json), [{ name: 'a' }, { name: 'b' }]);
  t.same(JSON.parse((await store.forRequest().listPlants('alice', 1n, 10)).json), [{ name: 'b' }]);
  t.same(await store.forRequest().listPlants('alice', undefined, 1), {
    json: '[{"name":"a"}]',
    lastId: 1n,
    cursor: encodeCursor(1n),
    nextId: 2n,
  });
});
