// The SQLite store's caches (first pages, token owners) behind its request handles: the same pages,
// byte for byte, as a plain query of the database, and never a stale one, whoever writes (this
// store, another connection, another process). A page answered from the cache is the very object
// cached before (the same PlantPage), which is how these tests tell a cached answer from a read.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { createToken, hashToken } from '../../../src/auth/tokens.js';
import { encodeCursor } from '../../../src/pagination/cursor.js';
import type { PlantPage } from '../../../src/pagination/page.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/app.js';
import { projectRoot } from '../../helpers/paths.js';
import { until } from '../../helpers/until.js';

function openStore(t: Test, path = join(tempDir(t), 'plants.db')) {
  const store = new SqliteStore(path);
  t.teardown(() => store.close());
  const writer = store.forRequest();
  /** A first page, read by a new request. */
  const firstPage = (owner: string, limit: number) => store.forRequest().listPlants(owner, undefined, limit);
  return { store, writer, firstPage, path };
}

const names = (page: PlantPage) => (JSON.parse(page.json) as Array<{ name: string }>).map((plant) => plant.name);

/** The slow path, written out plainly: every plant after `after` from its own connection, cut by hand, serialized by JSON.stringify. */
function plainPage(path: string, owner: string, after: bigint | undefined, limit: number) {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db
      .prepare('SELECT id, name, tag FROM plants WHERE owner = ? AND (? IS NULL OR id > ?) ORDER BY id')
      .safeIntegers()
      .all(owner, after ?? null, after ?? null) as Array<{ id: bigint; name: string; tag: string | null }>;
    const plants = rows.slice(0, limit).map(({ name, tag }) => (tag === null ? { name } : { name, tag }));
    return { plants, json: JSON.stringify(plants), lastId: rows.length > limit ? rows[limit - 1]!.id : undefined };
  } finally {
    db.close();
  }
}

t.test('pages, cached or not, are the plain query serialized: same text, same next cursor', async (t) => {
  const { store, writer, path } = openStore(t);
  const awkward = [
    'plain',
    'quote " inside',
    'back\\slash',
    'émoji 🌵 and 中文',
    'line\u2028separator',
    '</script>',
    'tab\there',
    'x'.repeat(200),
  ];
  for (const [i, name] of awkward.entries()) {
    await writer.addPlant('alice', { id: BigInt(i * 3 - 9), name, ...(i % 3 === 0 ? {} : { tag: i % 3 === 1 ? '' : `tag ${i}` }) });
  }
  await writer.addPlant('alice', { id: 9223372036854775807n, name: 'max' });
  await writer.addPlant('bob', { id: 0n, name: 'not alice' });
  for (const limit of [1, 2, 3, 8, 9, 10, 1000]) {
    let after: bigint | undefined;
    for (;;) {
      const plain = plainPage(path, 'alice', after, limit);
      // A first page twice: read from the database, then from the cache.
      for (const page of after === undefined
        ? [await store.forRequest().listPlants('alice', after, limit), await store.forRequest().listPlants('alice', after, limit)]
        : [await store.forRequest().listPlants('alice', after, limit)]) {
        t.same(JSON.parse(page.json), plain.plants, `limit ${limit} after ${after}`);
        t.equal(page.json, plain.json, `limit ${limit} after ${after}: byte for byte`);
        t.equal(page.lastId, plain.lastId, `limit ${limit} after ${after}: next cursor`);
        t.equal(page.cursor, plain.lastId === undefined ? undefined : encodeCursor(plain.lastId));
      }
      if (plain.lastId === undefined) break;
      after = plain.lastId;
    }
  }
  t.equal((await store.forRequest().listPlants('nobody', undefined, 10)).json, '[]');
  t.same(await store.forRequest().listPlants('alice', 9223372036854775807n, 10), { json: '[]' });
});

t.test('printable text comes out byte for byte as JSON.stringify writes it', async (t) => {
  const { store, writer, path } = openStore(t);
  await writer.addPlant('alice', { id: 1n, name: 'quote " back\\slash émoji 🌵 \u2028 </script>', tag: '' });
  await writer.addPlant('alice', { id: 2n, name: 'no tag' });
  const { plants } = plainPage(path, 'alice', undefined, 10);
  t.equal((await store.forRequest().listPlants('alice', undefined, 10)).json, JSON.stringify(plants));
});

t.test("a cached first page follows this store's own writes", async (t) => {
  const { writer, firstPage } = openStore(t);
  await writer.addPlant('alice', { id: 2n, name: 'b' });
  const cached = await firstPage('alice', 10);
  t.same(names(cached), ['b']);
  t.equal(await firstPage('alice', 10), cached, 'cached');
  await writer.addPlant('alice', { id: 1n, name: 'a' });
  const afterCreate = await firstPage('alice', 10);
  t.same(names(afterCreate), ['a', 'b'], 'after a create');
  await writer.deletePlant('alice', 2n);
  const afterDelete = await firstPage('alice', 10);
  t.same(names(afterDelete), ['a'], 'after a delete');
  await writer.addPlant('bob', { id: 1n, name: 'bob' });
  t.equal(await firstPage('alice', 10), afterDelete, "another owner's write leaves alice's pages alone");
  t.equal(await writer.addPlant('alice', { id: 1n, name: 'other' }), 'conflict');
  t.same(names(await firstPage('alice', 10)), ['a'], 'a conflict changes nothing');
});

t.test("another connection's commit drops the cached pages", async (t) => {
  const { store, writer, path } = openStore(t);
  await writer.addPlant('alice', { id: 1n, name: 'a' });
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a']);
  const other = new Database(path);
  other.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', 2, 'from elsewhere')").run();
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a', 'from elsewhere'], 'after an insert');
  other.prepare("DELETE FROM plants WHERE owner = 'alice' AND id = 1").run();
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['from elsewhere'], 'after a delete');
  other.close();
});

t.test("another process's commit drops the cached pages", async (t) => {
  const { store, writer, path } = openStore(t);
  await writer.addPlant('alice', { id: 1n, name: 'a' });
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a']);
  const write = `const D = require('better-sqlite3'); const db = new D(process.argv[1]); db.pragma('busy_timeout = 5000');
    db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', 0, 'from another process')").run(); db.close();`;
  execFileSync(process.execPath, ['-e', write, path], { cwd: projectRoot });
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['from another process', 'a']);
});

t.test('the page cache keeps within its budget, dropping the owners used least recently', async (t) => {
  const { store, firstPage, path } = openStore(t);
  const owners = 4000; // a page of one 300-character plant is some 1.4 kB: 4,000 of them are past the 4 MB budget
  const other = new Database(path);
  const insert = other.prepare('INSERT INTO plants (owner, id, name) VALUES (?, 1, ?)');
  other.transaction(() => {
    for (let i = 0; i < owners; i++) insert.run(`user-${i}`, 'x'.repeat(300));
  })();
  other.close();
  const first = await firstPage('user-0', 10);
  await store.forRequest().findToken('warm'); // the look after the bulk insert
  t.equal(await firstPage('user-0', 10), first, 'cached while the cache has room');
  for (let i = 1; i < owners; i++) await firstPage(`user-${i}`, 10);
  const last = await firstPage(`user-${owners - 1}`, 10);
  t.equal(await firstPage(`user-${owners - 1}`, 10), last, 'the owner used last stays');
  t.not(await firstPage('user-0', 10), first, 'the owner used first went');
});

t.test('a read looks for other writers first, whether it reads a token or a cached first page', async (t) => {
  const { store, writer, path } = openStore(t);
  const { token } = await createToken(store, 'alice');
  await writer.addPlant('alice', { id: 1n, name: 'a' });
  await store.forRequest().listPlants('alice', undefined, 10); // cached
  const other = new Database(path);
  t.teardown(() => other.close());
  const insert = other.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, 'elsewhere')");

  insert.run(2);
  const first = store.forRequest();
  t.same(await first.findToken(hashToken(token)), { tokenId: 1, user: 'alice' });
  t.same(names(await first.listPlants('alice', undefined, 10)), ['a', 'elsewhere'], 'the token read looked for the commit');

  const second = store.forRequest();
  insert.run(3);
  t.same(
    names(await second.listPlants('alice', undefined, 10)),
    ['a', 'elsewhere', 'elsewhere'],
    'a request whose first read is a page looks too',
  );

  other.prepare("UPDATE tokens SET revoked_at = 'now'").run();
  t.equal(await store.forRequest().findToken(hashToken(token)), undefined, 'a token revoked elsewhere is not found by the next request');
});

t.test('creating a plant after a full first page keeps that page; anything that can change it drops it', async (t) => {
  const { writer, firstPage } = openStore(t);
  for (let id = 1n; id <= 5n; id++) await writer.addPlant('alice', { id: id * 10n, name: `p${id}` });
  const two = await firstPage('alice', 2); // [10, 20], more follow
  const all = await firstPage('alice', 10); // all five, nothing follows
  await writer.addPlant('alice', { id: 1000n, name: 'late' });
  t.equal(await firstPage('alice', 2), two, 'a page the new id sorts after is kept');
  t.not(await firstPage('alice', 10), all, 'a last page is dropped: the plant lands on it');
  await writer.addPlant('alice', { id: 15n, name: 'inside' });
  t.not(await firstPage('alice', 2), two, 'a page the new id lands on is dropped');
});

t.test('deleting a plant after a full first page keeps that page unless it deletes the plant right after it', async (t) => {
  const { writer, firstPage, path } = openStore(t);
  for (let id = 1n; id <= 4n; id++) await writer.addPlant('alice', { id: id * 10n, name: `p${id}` });
  const two = await firstPage('alice', 2); // [10, 20], next 30
  t.equal(two.nextId, 30n);
  t.equal(await writer.deletePlant('alice', 40n), true);
  t.equal(await firstPage('alice', 2), two, 'a delete past the plant after the page keeps it');
  t.equal(await writer.deletePlant('alice', 15n), false);
  t.not(await firstPage('alice', 2), two, 'a delete (even of nothing) among the plants it holds drops it');
  const again = await firstPage('alice', 2);
  t.equal(await writer.deletePlant('alice', 30n), true);
  const last = await firstPage('alice', 2);
  t.not(last, again, 'a delete of the plant after the page drops it');
  t.equal(last.lastId, undefined, 'and the page read again has no next page: nothing follows it any more');
  t.equal(last.json, plainPage(path, 'alice', undefined, 2).json);
});

t.test('cached first pages always equal the database, over random writes from here and elsewhere', async (t) => {
  const { store, writer, path } = openStore(t);
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
    if (action === 0) await writer.addPlant('alice', { id, name: `n${next(3)}` });
    else if (action === 1) await writer.deletePlant('alice', id);
    else if (action === 2) elsewhere.add.run(id);
    else if (action === 3) elsewhere.delete.run(id);
    for (const limit of [1, 3, 8, 50]) {
      const cached = await store.forRequest().listPlants('alice', undefined, limit);
      const truth = plainPage(path, 'alice', undefined, limit);
      if (cached.json !== truth.json || cached.lastId !== truth.lastId) {
        t.fail(`step ${step}, limit ${limit}: cached ${cached.json} ${cached.lastId}, database ${truth.json} ${truth.lastId}`);
        return;
      }
    }
  }
  t.pass('400 random writes, every cached page right');
});

t.test('pages of 1,000 asked for in one turn, read in several rounds, answer as the plain query', async (t) => {
  const { path, firstPage, store } = openStore(t);
  const other = new Database(path);
  const insert = other.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, ?)");
  other.transaction(() => {
    for (let id = 1; id <= 1500; id++) insert.run(id, `plant ${id}`);
  })();
  other.close();
  const afters = [0n, 100n, 200n];
  const pages = await Promise.all([
    ...afters.map((after) => store.forRequest().listPlants('alice', after, 1000)),
    firstPage('alice', 1000),
    store.forRequest().findToken(hashToken('pst_unknown')),
  ]);
  [...afters, undefined].forEach((after, i) => {
    const plain = plainPage(path, 'alice', after, 1000);
    t.equal((pages[i] as PlantPage).json, plain.json, `the page after ${after} as the plain query has it`);
    t.equal((pages[i] as PlantPage).lastId, plain.lastId);
  });
  t.equal(pages[4], undefined, 'the token read answered too');
});

t.test("after its request's look, a cached first page is answered at once, without a round; a new request looks again", async (t) => {
  const { store, writer, firstPage, path } = openStore(t);
  await writer.addPlant('alice', { id: 1n, name: 'a' });
  const { token } = await createToken(store, 'alice');
  const cached = await firstPage('alice', 10);
  const request = store.forRequest();
  let answered: PlantPage | undefined;
  void request.listPlants('alice', undefined, 10).then((page) => (answered = page));
  await Promise.resolve();
  await Promise.resolve();
  t.equal(answered, undefined, "a request's first read waits for a round, even for a cached page");
  await until(() => answered !== undefined, 5000, 'the round');
  t.equal(answered, cached);

  const next = store.forRequest();
  t.same(await next.findToken(hashToken(token)), { tokenId: 1, user: 'alice' });
  let atOnce: PlantPage | undefined;
  void next.listPlants('alice', undefined, 10).then((page) => (atOnce = page));
  await Promise.resolve();
  await Promise.resolve();
  t.equal(atOnce, cached, 'after its look, the cached page came in the same turn, before any round could run');
  let later: PlantPage | undefined;
  const laterPage = next.listPlants('alice', 1n, 10).then((page) => (later = page));
  await Promise.resolve();
  await Promise.resolve();
  t.equal(later, undefined, 'a page at a cursor waits for a round');
  await laterPage;

  const other = new Database(path);
  t.teardown(() => other.close());
  other.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', 0, 'first')").run();
  t.same(
    names(await store.forRequest().listPlants('alice', undefined, 10)),
    ['first', 'a'],
    'a request that arrives after that commit sees it',
  );
});
