// The SQLite store's writes go through its writer thread: its own commits leave the caches alone,
// anyone else's drop them, an owner with a write on its way is read from the file, and a writer that
// stops refuses writes and makes the store not ready.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { createToken, hashToken } from '../../../src/auth/tokens.js';
import type { PlantPage } from '../../../src/pagination/page.js';
import { SqliteStore, type SqliteStoreOptions } from '../../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/app.js';
import { projectRoot } from '../../helpers/paths.js';
import { until } from '../../helpers/until.js';

function openStore(t: Test, options: SqliteStoreOptions = {}) {
  const path = join(tempDir(t), 'plants.db');
  const store = new SqliteStore(path, options);
  t.teardown(() => store.close());
  const other = new Database(path);
  t.teardown(() => other.close());
  return { store, path, other };
}

const names = (page: PlantPage) => (JSON.parse(page.json) as Array<{ name: string }>).map((plant) => plant.name);
/** A new request's first read: it looks for commits by others. */
const look = async (store: SqliteStore, token: string) => {
  await store.forRequest().findToken(hashToken(token));
};

t.test("the writer's commits keep the other owners' cached pages and the tokens", async (t) => {
  const { store } = openStore(t);
  const { token } = await createToken(store, 'alice');
  await store.addPlant('alice', { id: 1n, name: 'a' });
  await store.addPlant('bob', { id: 1n, name: 'b' });
  await store.forRequest().listPlants('alice', undefined, 10);
  await store.forRequest().listPlants('bob', undefined, 10);
  await store.deletePlant('bob', 1n);
  await store.addPlant('carol', { id: 1n, name: 'c' });
  await look(store, token);
  t.ok(store.reads.pages.get('alice', 10), "alice's page survives other owners' writes and the look after them");
  t.notOk(store.reads.pages.get('bob', 10), "bob's page went with his delete");
  t.same(names(await store.forRequest().listPlants('bob', undefined, 10)), []);
});

t.test("another connection's commit, before or after the writer's, drops every cached page", async (t) => {
  const { store, other } = openStore(t);
  const { token } = await createToken(store, 'alice');
  const insert = other.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, 'elsewhere')");
  await store.addPlant('alice', { id: 10n, name: 'a' });
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a']);
  insert.run(1);
  await store.addPlant('bob', { id: 1n, name: 'b' }); // the writer commits after it
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['elsewhere', 'a'], 'a commit before the writer’s');
  await store.addPlant('bob', { id: 2n, name: 'b' });
  insert.run(2);
  await look(store, token);
  t.notOk(store.reads.pages.get('alice', 10), 'a commit after the writer’s: dropped at the look');
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['elsewhere', 'elsewhere', 'a']);
});

t.test("an owner with a write on its way is read from the file, and its page is kept again once answered", async (t) => {
  const { store, other } = openStore(t, { lockTimeoutMs: 30_000 });
  await store.addPlant('alice', { id: 1n, name: 'a' });
  await store.forRequest().listPlants('alice', undefined, 10);
  t.ok(store.reads.cachedPage('alice', 10), 'cached');
  other.exec('BEGIN IMMEDIATE'); // the write waits for this lock
  const write = store.addPlant('alice', { id: 0n, name: 'new' });
  await until(() => store.writes.isWriting('alice'), 5000, 'the write on its way');
  t.notOk(store.reads.cachedPage('alice', 10), 'the cache does not answer for an owner being written');
  store.reads.pages.forget('alice');
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a'], 'read from the file, where the write is not yet');
  t.notOk(store.reads.pages.get('alice', 10), 'and not kept');
  t.ok(store.reads.cachedPage('bob', 10) === undefined && !store.writes.isWriting('bob'), 'other owners are not being written');
  other.exec('COMMIT');
  t.equal(await write, 'created');
  t.notOk(store.writes.isWriting('alice'));
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['new', 'a']);
  t.ok(store.reads.cachedPage('alice', 10), 'kept again');
});

t.test('token owners are not kept while a revocation is on its way, and are dropped when it is answered', async (t) => {
  const { store, other } = openStore(t, { lockTimeoutMs: 30_000 });
  const alice = await createToken(store, 'alice');
  const bob = await createToken(store, 'bob');
  t.same(await store.forRequest().findToken(hashToken(alice.token)), { tokenId: alice.id, user: 'alice' });
  other.exec('BEGIN IMMEDIATE');
  const revoked = store.revokeToken(alice.id);
  await until(() => store.writes.revoking, 5000, 'the revocation on its way');
  t.same(await store.forRequest().findToken(hashToken(bob.token)), { tokenId: bob.id, user: 'bob' }, 'looked up meanwhile');
  other.exec('COMMIT');
  t.equal(await revoked, true);
  t.equal(await store.forRequest().findToken(hashToken(alice.token)), undefined, 'the revoked token fails at once');
  t.same(await store.forRequest().findToken(hashToken(bob.token)), { tokenId: bob.id, user: 'bob' });
});

t.test('a writer that stops: its write is refused, every later one too, and the store is not ready', async (t) => {
  const stopping = pathToFileURL(join(projectRoot, 'test', 'helpers', 'stopping-writer.ts'));
  const { store } = openStore(t, { writer: stopping });
  t.ok(await store.isReady(), 'ready while the writer runs');
  await store.forRequest().listPlants('alice', undefined, 10);
  t.ok(store.reads.pages.get('alice', 10), 'a cached page');
  const refused = await store.addPlant('alice', { id: 1n, name: 'a' }).catch((error: unknown) => error as Error & { statusCode?: number; code?: string });
  t.match(refused, { statusCode: 503, code: 'PLANT_STORE_DATABASE_UNAVAILABLE' });
  t.match(String((refused as { cause?: unknown }).cause), /writer thread exited \(code 3\)/, 'the cause says why');
  t.notOk(store.reads.pages.get('alice', 10), 'the caches were dropped: the write may have committed');
  t.match(await store.deletePlant('alice', 1n).catch((error: unknown) => error), { statusCode: 503 }, 'and every later one');
  t.notOk(await store.isReady(), 'not ready: /readyz answers 503 and the instance can be replaced');
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), [], 'reads still work');
});

t.test('closing waits for the writes on their way, then ends the writer thread', async (t) => {
  const { store, path } = openStore(t);
  const writes = Array.from({ length: 20 }, (_, i) => store.addPlant('alice', { id: BigInt(i), name: `p${i}` }));
  await store.close();
  t.same(new Set(await Promise.all(writes)), new Set(['created']));
  await t.rejects(store.addPlant('alice', { id: 99n, name: 'late' }), /closed/);
  const db = new Database(path, { readonly: true });
  t.equal(db.prepare('SELECT count(*) FROM plants').pluck().get(), 20);
  db.close();
});

t.test('opening waits for the writer thread, and fails when it cannot start', async (t) => {
  const path = join(tempDir(t), 'plants.db');
  const store = await SqliteStore.open(path);
  t.teardown(() => store.close());
  await t.resolves(store.writes.started, 'started by the time open resolves');
  const missing = pathToFileURL(join(projectRoot, 'test', 'helpers', 'no-such-writer.ts'));
  await t.rejects(SqliteStore.open(join(tempDir(t), 'other.db'), { writer: missing }), /no-such-writer/);
});
