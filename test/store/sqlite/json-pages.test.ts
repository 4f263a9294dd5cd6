// Pages as JSON text from SQLite, and the cache of first pages: the same answers as listPlants,
// and never a stale page, whoever writes (this store, another connection, another process).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { PageCache } from '../../../src/store/sqlite/page-cache.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/app.js';
import { projectRoot } from '../../helpers/paths.js';

function openStore(t: Test, path = join(tempDir(t), 'plants.db')) {
  const store = new SqliteStore(path);
  t.teardown(() => store.close());
  return { store, path };
}

const names = (json: string) => (JSON.parse(json) as Array<{ name: string }>).map((plant) => plant.name);

t.test('JSON pages are the object pages, serialized: same text, same next cursor', async (t) => {
  const { store } = openStore(t);
  const awkward = ['plain', 'quote " inside', 'back\\slash', 'émoji 🌵 and 中文', 'line\u2028separator', '</script>', 'tab\there', 'x'.repeat(200)];
  for (const [i, name] of awkward.entries()) {
    await store.addPlant('alice', { id: BigInt(i * 3 - 9), name, ...(i % 3 === 0 ? {} : { tag: i % 3 === 1 ? '' : `tag ${i}` }) });
  }
  await store.addPlant('alice', { id: 9223372036854775807n, name: 'max' });
  await store.addPlant('bob', { id: 0n, name: 'not alice' });
  for (const limit of [1, 2, 3, 8, 9, 10, 1000]) {
    let after: bigint | undefined;
    for (;;) {
      const objects = await store.listPlants('alice', after, limit);
      const json = store.readView().listPlantsJson('alice', after, limit);
      t.same(JSON.parse(json.json), objects.plants, `limit ${limit} after ${after}`);
      if (!awkward.some((name) => name.includes('\t'))) t.equal(json.json, JSON.stringify(objects.plants));
      t.equal(json.lastId, objects.lastId, `limit ${limit} after ${after}: next cursor`);
      if (json.lastId === undefined) break;
      after = json.lastId;
    }
  }
  t.equal(store.readView().listPlantsJson('nobody', undefined, 10).json, '[]');
  t.same(store.readView().listPlantsJson('alice', 9223372036854775807n, 10), { json: '[]' });
});

t.test('printable text comes out byte for byte as JSON.stringify writes it', async (t) => {
  const { store } = openStore(t);
  await store.addPlant('alice', { id: 1n, name: 'quote " back\\slash émoji 🌵 \u2028 </script>', tag: '' });
  await store.addPlant('alice', { id: 2n, name: 'no tag' });
  const { plants } = await store.listPlants('alice', undefined, 10);
  t.equal(store.readView().listPlantsJson('alice', undefined, 10).json, JSON.stringify(plants));
});

t.test("a cached first page follows this store's own writes", async (t) => {
  const { store } = openStore(t);
  await store.addPlant('alice', { id: 2n, name: 'b' });
  t.same(names(store.readView().listPlantsJson('alice', undefined, 10).json), ['b']);
  t.ok(store.reads.pages.get('alice', 10), 'cached');
  await store.addPlant('alice', { id: 1n, name: 'a' });
  t.same(names(store.readView().listPlantsJson('alice', undefined, 10).json), ['a', 'b'], 'after a create');
  await store.deletePlant('alice', 2n);
  t.same(names(store.readView().listPlantsJson('alice', undefined, 10).json), ['a'], 'after a delete');
  await store.addPlant('bob', { id: 1n, name: 'bob' });
  t.ok(store.reads.pages.get('alice', 10), "another owner's write leaves alice's pages alone");
  t.equal(await store.addPlant('alice', { id: 1n, name: 'other' }), 'conflict');
  t.same(names(store.readView().listPlantsJson('alice', undefined, 10).json), ['a'], 'a conflict changes nothing');
});

t.test("another connection's commit drops the cached pages", async (t) => {
  const { store, path } = openStore(t);
  await store.addPlant('alice', { id: 1n, name: 'a' });
  t.same(names(store.readView().listPlantsJson('alice', undefined, 10).json), ['a']);
  const other = new Database(path);
  other.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', 2, 'from elsewhere')").run();
  t.same(names(store.readView().listPlantsJson('alice', undefined, 10).json), ['a', 'from elsewhere'], 'after an insert');
  other.prepare("DELETE FROM plants WHERE owner = 'alice' AND id = 1").run();
  t.same(names(store.readView().listPlantsJson('alice', undefined, 10).json), ['from elsewhere'], 'after a delete');
  other.close();
});

t.test("another process's commit drops the cached pages", async (t) => {
  const { store, path } = openStore(t);
  await store.addPlant('alice', { id: 1n, name: 'a' });
  t.same(names(store.readView().listPlantsJson('alice', undefined, 10).json), ['a']);
  const write = `const D = require('better-sqlite3'); const db = new D(process.argv[1]); db.pragma('busy_timeout = 5000');
    db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', 0, 'from another process')").run(); db.close();`;
  execFileSync(process.execPath, ['-e', write, path], { cwd: projectRoot });
  t.same(names(store.readView().listPlantsJson('alice', undefined, 10).json), ['from another process', 'a']);
});

t.test('the cache keeps within its budget, dropping the oldest owners first', async (t) => {
  const cache = new PageCache(10_000);
  const page = { json: 'x'.repeat(1000) };
  for (let i = 0; i < 20; i++) cache.set(`user-${i}`, 20, page);
  t.ok(cache.bytes <= 10_000, `${cache.bytes} bytes`);
  t.notOk(cache.get('user-0', 20), 'the oldest went');
  t.ok(cache.get('user-19', 20), 'the newest stayed');
  cache.set('huge', 20, { json: 'x'.repeat(20_000) });
  t.notOk(cache.get('huge', 20), 'a page larger than the budget is not kept');
  cache.set('user-19', 20, page);
  cache.set('user-19', 20, page);
  cache.forget('user-19');
  cache.clear();
  t.equal(cache.bytes, 0);
});

t.test('a read view looks for other writers at its first read, and each new view looks again', async (t) => {
  const { store, path } = openStore(t);
  const { createToken, hashTokenText } = await import('../../../src/auth/tokens.js');
  const { token } = await createToken(store, 'alice');
  await store.addPlant('alice', { id: 1n, name: 'a' });
  store.readView().listPlantsJson('alice', undefined, 10); // cached
  const other = new Database(path);
  t.teardown(() => other.close());
  const insert = other.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, 'elsewhere')");

  insert.run(2);
  const first = store.readView();
  t.same(first.findTokenByHashText(hashTokenText(token)), { tokenId: 1, user: 'alice' });
  t.same(names(first.listPlantsJson('alice', undefined, 10).json), ['a', 'elsewhere'], 'the token read looked for the commit');

  const second = store.readView();
  insert.run(3);
  t.same(names(second.listPlantsJson('alice', undefined, 10).json), ['a', 'elsewhere', 'elsewhere'], 'a view whose first read is a page looks too');

  other.prepare("UPDATE tokens SET revoked_at = 'now'").run();
  t.equal(store.readView().findTokenByHashText(hashTokenText(token)), undefined, 'a token revoked elsewhere is not found by the next view');
});

t.test('creating a plant after a full first page keeps that page; anything that can change it drops it', async (t) => {
  const { store } = openStore(t);
  for (let id = 1n; id <= 5n; id++) await store.addPlant('alice', { id: id * 10n, name: `p${id}` });
  store.readView().listPlantsJson('alice', undefined, 2); // [10, 20], more follow
  store.readView().listPlantsJson('alice', undefined, 10); // all five, nothing follows
  await store.addPlant('alice', { id: 1000n, name: 'late' });
  t.ok(store.reads.pages.get('alice', 2), 'a page the new id sorts after is kept');
  t.notOk(store.reads.pages.get('alice', 10), 'a last page is dropped: the plant lands on it');
  await store.addPlant('alice', { id: 15n, name: 'inside' });
  t.notOk(store.reads.pages.get('alice', 2), 'a page the new id lands on is dropped');
});

t.test('cached first pages always equal the database, over random writes from here and elsewhere', async (t) => {
  const { store, path } = openStore(t);
  const other = new Database(path);
  t.teardown(() => other.close());
  const elsewhere = {
    add: other.prepare("INSERT OR IGNORE INTO plants (owner, id, name) VALUES ('alice', ?, 'elsewhere')"),
    delete: other.prepare("DELETE FROM plants WHERE owner = 'alice' AND id = ?"),
  };
  let seed = 7;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  for (let step = 0; step < 400; step++) {
    const id = BigInt(next(40) - 20);
    const action = next(6);
    if (action === 0) await store.addPlant('alice', { id, name: `n${next(3)}` });
    else if (action === 1) await store.deletePlant('alice', id);
    else if (action === 2) elsewhere.add.run(id);
    else if (action === 3) elsewhere.delete.run(id);
    for (const limit of [1, 3, 8, 50]) {
      const view = store.readView();
      const cached = view.listPlantsJson('alice', undefined, limit);
      const truth = await store.listPlants('alice', undefined, limit);
      if (cached.json !== JSON.stringify(truth.plants) || cached.lastId !== truth.lastId) {
        t.fail(`step ${step}, limit ${limit}: cached ${cached.json} ${cached.lastId}, database ${JSON.stringify(truth.plants)} ${truth.lastId}`);
        return;
      }
    }
  }
  t.pass('400 random writes, every cached page right');
});
