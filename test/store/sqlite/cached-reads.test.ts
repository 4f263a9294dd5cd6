// The SQLite store's caches (first pages, token owners) behind its request handles: the same pages,
// byte for byte, as a plain query of the database, and never a stale one, whoever writes (this
// store, another connection, another process).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { createToken, hashToken } from '../../../src/auth/tokens.js';
import { encodeCursor } from '../../../src/pagination/cursor.js';
import { toPage, type PlantPage, type PlantRow } from '../../../src/pagination/page.js';
import { PageCache } from '../../../src/store/sqlite/page-cache.js';
import { MAX_BATCH_ROWS } from '../../../src/store/sqlite/read-batch.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/app.js';
import { projectRoot } from '../../helpers/paths.js';

function openStore(t: Test, path = join(tempDir(t), 'plants.db')) {
  const store = new SqliteStore(path);
  t.teardown(() => store.close());
  return { store, path };
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
  const { store, path } = openStore(t);
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
    await store.addPlant('alice', { id: BigInt(i * 3 - 9), name, ...(i % 3 === 0 ? {} : { tag: i % 3 === 1 ? '' : `tag ${i}` }) });
  }
  await store.addPlant('alice', { id: 9223372036854775807n, name: 'max' });
  await store.addPlant('bob', { id: 0n, name: 'not alice' });
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
  const { store, path } = openStore(t);
  await store.addPlant('alice', { id: 1n, name: 'quote " back\\slash émoji 🌵 \u2028 </script>', tag: '' });
  await store.addPlant('alice', { id: 2n, name: 'no tag' });
  const { plants } = plainPage(path, 'alice', undefined, 10);
  t.equal((await store.forRequest().listPlants('alice', undefined, 10)).json, JSON.stringify(plants));
});

t.test("a cached first page follows this store's own writes", async (t) => {
  const { store } = openStore(t);
  await store.addPlant('alice', { id: 2n, name: 'b' });
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['b']);
  t.ok(store.reads.pages.get('alice', 10), 'cached');
  await store.addPlant('alice', { id: 1n, name: 'a' });
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a', 'b'], 'after a create');
  await store.deletePlant('alice', 2n);
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a'], 'after a delete');
  await store.addPlant('bob', { id: 1n, name: 'bob' });
  t.ok(store.reads.pages.get('alice', 10), "another owner's write leaves alice's pages alone");
  t.equal(await store.addPlant('alice', { id: 1n, name: 'other' }), 'conflict');
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a'], 'a conflict changes nothing');
});

t.test("another connection's commit drops the cached pages", async (t) => {
  const { store, path } = openStore(t);
  await store.addPlant('alice', { id: 1n, name: 'a' });
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a']);
  const other = new Database(path);
  other.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', 2, 'from elsewhere')").run();
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a', 'from elsewhere'], 'after an insert');
  other.prepare("DELETE FROM plants WHERE owner = 'alice' AND id = 1").run();
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['from elsewhere'], 'after a delete');
  other.close();
});

t.test("another process's commit drops the cached pages", async (t) => {
  const { store, path } = openStore(t);
  await store.addPlant('alice', { id: 1n, name: 'a' });
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a']);
  const write = `const D = require('better-sqlite3'); const db = new D(process.argv[1]); db.pragma('busy_timeout = 5000');
    db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', 0, 'from another process')").run(); db.close();`;
  execFileSync(process.execPath, ['-e', write, path], { cwd: projectRoot });
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['from another process', 'a']);
});

t.test('the cache keeps within its budget, dropping the oldest owners first', async (t) => {
  const cache = new PageCache(10_000);
  const plants = (count: number, name: string) =>
    toPage(
      Array.from({ length: count }, (_, i): PlantRow => [BigInt(i), name, null]),
      count,
    );
  const page = plants(10, 'x'.repeat(30));
  for (let i = 0; i < 20; i++) cache.set(`user-${i}`, 20, page);
  t.ok(cache.bytes <= 10_000, `${cache.bytes} bytes`);
  t.notOk(cache.get('user-0', 20), 'the oldest went');
  t.ok(cache.get('user-19', 20), 'the newest stayed');
  cache.set('huge', 20, plants(1, 'x'.repeat(20_000)));
  t.notOk(cache.get('huge', 20), 'a page larger than the budget is not kept');
  cache.set('user-19', 20, page);
  cache.set('user-19', 20, page);
  cache.forget('user-19');
  cache.clear();
  t.equal(cache.bytes, 0);
});

t.test("a request's handle looks for other writers at its first read, and each new handle looks again", async (t) => {
  const { store, path } = openStore(t);
  const { token } = await createToken(store, 'alice');
  await store.addPlant('alice', { id: 1n, name: 'a' });
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
    'a handle whose first read is a page looks too',
  );

  other.prepare("UPDATE tokens SET revoked_at = 'now'").run();
  t.equal(await store.forRequest().findToken(hashToken(token)), undefined, 'a token revoked elsewhere is not found by the next handle');
});

t.test('creating a plant after a full first page keeps that page; anything that can change it drops it', async (t) => {
  const { store } = openStore(t);
  for (let id = 1n; id <= 5n; id++) await store.addPlant('alice', { id: id * 10n, name: `p${id}` });
  await store.forRequest().listPlants('alice', undefined, 2); // [10, 20], more follow
  await store.forRequest().listPlants('alice', undefined, 10); // all five, nothing follows
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

t.test('reads of one turn share one read batch: one look, one snapshot; a read that fails fails alone', async (t) => {
  const { store, path } = openStore(t);
  await store.addPlant('alice', { id: 1n, name: 'a' });
  const { token } = await createToken(store, 'alice');
  const before = store.readBatch.batches;
  const handle = store.forRequest();
  const [owner, first, later, none] = await Promise.all([
    handle.findToken(hashToken(token)),
    handle.listPlants('alice', undefined, 10),
    handle.listPlants('alice', 0n, 10),
    handle.findToken(hashToken('pst_unknown')),
  ]);
  t.equal(store.readBatch.batches - before, 1, 'four reads made in one turn ran in one batch');
  t.equal(owner?.user, 'alice');
  t.same([names(first), names(later), none], [['a'], ['a'], undefined]);

  // A commit by another connection between two batches is seen by the second one's look.
  const other = new Database(path);
  t.teardown(() => other.close());
  other.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', 2, 'b')").run();
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a', 'b']);
  t.equal(store.readBatch.batches - before, 2);

  // A read that throws rejects its own request only.
  const results = await Promise.allSettled([
    store.forRequest().listPlants('alice', undefined, 10),
    store.readBatch.run(() => {
      throw new Error('this read fails');
    }),
    store.forRequest().listPlants('alice', 1n, 10),
  ]);
  t.same(
    results.map((result) => result.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  t.notOk(store.db.inTransaction, 'the batch ended its read transaction');
});

t.test('a batch reads at most MAX_BATCH_ROWS rows: the reads past them wait for the next batch, and answer the same', async (t) => {
  const { store, path } = openStore(t);
  const insert = store.db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, ?)");
  store.db.transaction(() => {
    for (let id = 1; id <= 1500; id++) insert.run(id, `plant ${id}`);
  })();
  const before = store.readBatch.batches;
  const afters = [0n, 100n, 200n];
  // Pages of 1,000 read 1,001 rows each: one fits a batch with a token read, two do not.
  const pages = await Promise.all([
    ...afters.map((after) => store.forRequest().listPlants('alice', after, 1000)),
    store.forRequest().findToken(hashToken('pst_unknown')),
  ]);
  t.ok(1001 * 2 > MAX_BATCH_ROWS && 1001 + 1 <= MAX_BATCH_ROWS, 'the sizes this test relies on');
  t.equal(store.readBatch.batches - before, 3, 'three pages of 1,000 made in one turn ran in three batches');
  afters.forEach((after, i) => {
    const plain = plainPage(path, 'alice', after, 1000);
    t.equal((pages[i] as PlantPage).json, plain.json, `the page after ${after} as the plain query has it`);
    t.equal((pages[i] as PlantPage).lastId, plain.lastId);
  });
  t.equal(pages[3], undefined, 'the token read answered too');
  const small = store.readBatch.batches;
  await Promise.all(afters.map((after) => store.forRequest().listPlants('alice', after, 100)));
  t.equal(store.readBatch.batches - small, 1, 'pages of 100 share one batch');
});

t.test('a batch whose look fails rejects its reads, and the next batch works again', async (t) => {
  const { store } = openStore(t);
  await store.addPlant('alice', { id: 1n, name: 'a' });
  store.db.exec('BEGIN'); // a transaction left open on the connection: the batch's BEGIN fails
  await t.rejects(store.forRequest().listPlants('alice', undefined, 10), /within a transaction/);
  store.db.exec('COMMIT');
  t.same(names(await store.forRequest().listPlants('alice', undefined, 10)), ['a']);
});

t.test("after its request's look, a cached first page is answered without another batch; a new request looks again", async (t) => {
  const { store, path } = openStore(t);
  await store.addPlant('alice', { id: 1n, name: 'a' });
  const { token } = await createToken(store, 'alice');
  await store.forRequest().listPlants('alice', undefined, 10); // cached now
  const request = store.forRequest();
  await request.findToken(hashToken(token));
  const before = store.readBatch.batches;
  t.same(names(await request.listPlants('alice', undefined, 10)), ['a']);
  t.equal(store.readBatch.batches, before, 'the cached page came without a batch');
  await request.listPlants('alice', 1n, 10);
  t.equal(store.readBatch.batches, before + 1, 'a later page is read in a batch');

  const other = new Database(path);
  t.teardown(() => other.close());
  other.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', 0, 'first')").run();
  t.same(
    names(await store.forRequest().listPlants('alice', undefined, 10)),
    ['first', 'a'],
    'a request that arrives after that commit sees it',
  );
});
