// The SQLite store on real files: durable settings, migrations of older files, group commit.
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
import { projectRoot } from '../../helpers/paths.js';

function openStore(t: Parameters<typeof tempDir>[0], path = join(tempDir(t), 'nested', 'folders', 'plants.db')) {
  const store = new SqliteStore(path);
  t.teardown(() => store.close());
  return { store, path };
}

t.test('a new file is created with its folders, in WAL mode, its commits synced off the event loop', async (t) => {
  const { store } = openStore(t);
  t.equal(store.db.pragma('journal_mode', { simple: true }), 'wal');
  t.equal(store.db.pragma('synchronous', { simple: true }), 1, 'NORMAL: COMMIT does not sync; wal-sync.ts does, before any answer');
  t.ok(store.durability, 'group commits are synced by WalSync');
  t.equal(
    store.db.pragma('busy_timeout', { simple: true }),
    0,
    'no lock is waited for on the event loop (group-commit.ts waits on timers)',
  );
  t.equal(store.db.pragma('user_version', { simple: true }), migrations.length);
});

t.test('a file from an older version is upgraded in place, keeping its plants', async (t) => {
  const path = join(tempDir(t), 'old.db');
  const old = new Database(path);
  old.exec(migrations[0]!);
  old.pragma('user_version = 1');
  old.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?)').run('alice', 9223372036854775807n, 'Old plant', null);
  old.close();

  const { store } = openStore(t, path);
  t.equal(store.db.pragma('user_version', { simple: true }), migrations.length);
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
  t.equal(store.db.pragma('user_version', { simple: true }), migrations.length);
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
  const before = store.writes.commits;
  const results = await Promise.all([
    store.addPlant('alice', { id: 1n, name: 'a' }),
    store.addPlant('alice', { id: 1n, name: 'b' }),
    store.addPlant('alice', { id: 1n, name: 'a' }),
    store.addPlant('bob', { id: 1n, name: 'b' }),
    store.deletePlant('alice', 99n),
    ...Array.from({ length: 50 }, (_, i) => store.addPlant('carol', { id: BigInt(i), name: `c${i}`, tag: 't' })),
  ]);
  t.same(results.slice(0, 5), ['created', 'conflict', 'unchanged', 'created', false]);
  t.equal(store.writes.commits - before, 1, '55 writes, one transaction');
  // Answered only after commit: another connection already sees every write.
  const reader = new Database(path, { readonly: true });
  t.equal(reader.prepare('SELECT count(*) FROM plants').pluck().get(), 52);
  reader.close();
});

t.test('one failing write in a batch is undone alone; its neighbours commit', async (t) => {
  const { store, path } = openStore(t);
  const insert = store.db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, 'x')");
  const twoRows = store.db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', 4, 'x'), ('alice', 1, 'x')");
  const outcomes = await Promise.allSettled([
    store.writes.run(() => insert.run(1n)),
    store.writes.run(() => {
      insert.run(2n);
      throw new Error('this write fails after writing');
    }),
    store.writes.run(() => insert.run(1n)), // primary key violation
    store.writes.run(() => insert.run(3n)),
    // Without a savepoint: SQLite undoes the failing statement itself, the row it wrote before failing too.
    store.writes.run(() => twoRows.run(), { oneStatement: true }),
    store.writes.run(() => insert.run(5n), { oneStatement: true }),
  ]);
  t.same(
    outcomes.map((outcome) => outcome.status),
    ['fulfilled', 'rejected', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
  );
  t.equal(store.writes.commits, 1, 'one transaction');
  const reader = new Database(path, { readonly: true });
  t.same(reader.prepare("SELECT id FROM plants WHERE owner = 'alice' ORDER BY id").pluck().all(), [1, 3, 5]);
  reader.close();
});

t.test(
  'a write whose failure ends the transaction (as disk full or an I/O error do) fails its whole batch, and nothing of it is kept',
  async (t) => {
    const { store, path } = openStore(t);
    const insert = store.db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, 'x')");
    const rollback = store.db.prepare('ROLLBACK');
    const outcomes = await Promise.allSettled([
      store.writes.run(() => insert.run(1n), { oneStatement: true }),
      store.writes.run(
        () => {
          rollback.run();
          throw new Error('the transaction ended under this write');
        },
        { oneStatement: true },
      ),
      store.writes.run(() => insert.run(3n), { oneStatement: true }),
    ]);
    t.same(
      outcomes.map((outcome) => outcome.status),
      ['rejected', 'rejected', 'rejected'],
    );
    t.notOk(store.db.inTransaction);
    t.equal(await store.writes.run(() => insert.run(4n).changes, { oneStatement: true }), 1, 'the next write commits');
    const reader = new Database(path, { readonly: true });
    t.same(reader.prepare("SELECT id FROM plants WHERE owner = 'alice' ORDER BY id").pluck().all(), [4], 'the failed batch left nothing');
    reader.close();
  },
);

t.test('pages continue after the last id of the previous page', async (t) => {
  const { store } = openStore(t);
  await store.addPlant('alice', { id: 1n, name: 'a' });
  t.equal(await store.addPlant('alice', { id: 2n, name: 'b' }), 'created');
  t.same(JSON.parse((await store.forRequest().listPlants('alice', undefined, 10)).json), [{ name: 'a' }, { name: 'b' }]);
  t.same(JSON.parse((await store.forRequest().listPlants('alice', 1n, 10)).json), [{ name: 'b' }]);
  t.same(await store.forRequest().listPlants('alice', undefined, 1), { json: '[{"name":"a"}]', lastId: 1n, cursor: encodeCursor(1n) });
});
