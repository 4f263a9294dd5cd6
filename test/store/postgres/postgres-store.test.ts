// The PostgreSQL store on a real server: migrations (old, newer, racing), exact int64 ids,
// the one-statement create under races, commits, shared page reads, timeouts and durable sessions.
import pg from 'pg';
import t from 'tap';
import { encodeCursor } from '../../../src/pagination/cursor.js';
import type { PlantPage } from '../../../src/pagination/page.js';
import { migrate } from '../../../src/store/postgres/database.js';
import { migrations } from '../../../src/store/postgres/migrations.js';
import { PostgresStore } from '../../../src/store/postgres/postgres-store.js';
import { adminQuery } from '../../helpers/postgres-database.js';
import { freshStore, onlyOn } from '../../helpers/store-under-test.js';
import { until } from '../../helpers/until.js';

type Test = Parameters<typeof freshStore>[0];

async function freshUrl(t: Test): Promise<string> {
  return (await freshStore(t)).config.databaseUrl!;
}

async function openStore(t: Test, url: string, timeoutMs = 5000): Promise<PostgresStore> {
  const store = await PostgresStore.open({ url, poolSize: 4, timeoutMs });
  t.teardown(() => store.close());
  return store;
}

const plantsOf = (page: PlantPage) => JSON.parse(page.json) as Array<{ name: string; tag?: string }>;
const one = async (store: PostgresStore, text: string) => (await store.pool.query(text)).rows[0] as Record<string, unknown>;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

t.test('a new database gets every migration; sessions have the configured timeouts', onlyOn('postgres'), async (t) => {
  const store = await openStore(t, await freshUrl(t), 1234);
  t.same(
    (await store.pool.query('SELECT version FROM schema_migrations ORDER BY version')).rows.map((row) => row.version),
    migrations.map((_, i) => i + 1),
  );
  t.equal((await one(store, 'SHOW statement_timeout')).statement_timeout, '1234ms');
  t.equal((await one(store, 'SHOW idle_in_transaction_session_timeout')).idle_in_transaction_session_timeout, '1234ms');
  t.equal((await one(store, 'SHOW synchronous_commit')).synchronous_commit, 'on', 'commits wait for the disk');
  t.equal((await one(store, 'SHOW application_name')).application_name, 'plant-store');
});

t.test('a database from an older version is upgraded in place, keeping its plants', onlyOn('postgres'), async (t) => {
  const url = await freshUrl(t);
  await migrate({ url, timeoutMs: 5000 }, 1);
  await adminQuery(url, `INSERT INTO plants (owner, id, name) VALUES ('alice', ${INT64_MAX}, 'Old plant')`);
  const store = await openStore(t, url);
  t.equal((await one(store, 'SELECT max(version) AS version FROM schema_migrations')).version, migrations.length);
  t.same(await store.listPlants('alice', undefined, 10), { json: '[{"name":"Old plant"}]' });
  t.equal(await store.countTokens(), 0, 'the tokens table was added');
});

t.test(
  'a database of schema 2 gains expiry and last use in place; its tokens keep working and never expire',
  onlyOn('postgres'),
  async (t) => {
    const url = await freshUrl(t);
    await migrate({ url, timeoutMs: 5000 }, 2);
    const hash = Buffer.alloc(32, 3).toString('base64');
    await adminQuery(
      url,
      `INSERT INTO tokens (user_name, hash, created_at, revoked_at) VALUES
       ('alice', decode('${Buffer.from(hash, 'base64').toString('hex')}', 'hex'), '2024-01-02T03:04:05.678Z', NULL),
       ('bob', decode('${'01'.repeat(32)}', 'hex'), '2024-01-03T00:00:00Z', '2024-02-01T00:00:00Z')`,
    );
    const store = await openStore(t, url);
    t.equal((await one(store, 'SELECT max(version) AS version FROM schema_migrations')).version, migrations.length);
    t.same(await store.listTokens(), [
      { id: 1, user: 'alice', createdAt: '2024-01-02T03:04:05.678Z', expiresAt: null, expired: false, lastUsedAt: null, revokedAt: null },
      {
        id: 2,
        user: 'bob',
        createdAt: '2024-01-03T00:00:00.000Z',
        expiresAt: null,
        expired: false,
        lastUsedAt: null,
        revokedAt: '2024-02-01T00:00:00.000Z',
      },
    ]);
    t.same(await store.findToken(hash), { tokenId: 1, user: 'alice' }, 'the old token still works');
    await store.close();
    t.match(
      (await adminQuery(url, "SELECT to_char(last_used_at, 'YYYY') AS year FROM tokens WHERE id = 1")).rows[0].year,
      /^\d{4}$/,
      'its use was written on close',
    );
  },
);

t.test('a database from a newer version is refused, not touched', onlyOn('postgres'), async (t) => {
  const url = await freshUrl(t);
  await migrate({ url, timeoutMs: 5000 });
  await adminQuery(url, `INSERT INTO schema_migrations (version) VALUES (${migrations.length + 1})`);
  await t.rejects(PostgresStore.open({ url, poolSize: 1, timeoutMs: 5000 }), /newer than this Plant Store/);
  t.equal((await adminQuery(url, 'SELECT count(*)::int AS n FROM schema_migrations')).rows[0].n, migrations.length + 1);
});

t.test('instances starting at once apply each migration exactly once (advisory lock)', onlyOn('postgres'), async (t) => {
  const url = await freshUrl(t);
  const stores = await Promise.all(Array.from({ length: 8 }, () => openStore(t, url)));
  t.equal(stores.length, 8, 'every instance opened');
  t.same(
    (await adminQuery(url, 'SELECT version FROM schema_migrations ORDER BY version')).rows.map((row) => row.version),
    migrations.map((_, i) => i + 1),
  );
  t.equal(await stores[0]!.addPlant('alice', { id: 1n, name: 'a' }), 'created');
  t.equal(await stores[7]!.addPlant('alice', { id: 1n, name: 'a' }), 'unchanged', 'they share one database');
});

t.test('ids are exact across the whole int64 range, in signed order', onlyOn('postgres'), async (t) => {
  const store = await openStore(t, await freshUrl(t));
  const ids = [INT64_MAX, 2n ** 53n + 1n, INT64_MIN, 0n, -1n, 2n ** 53n, INT64_MAX - 1n, INT64_MIN + 1n];
  for (const id of ids) t.equal(await store.addPlant('alice', { id, name: String(id) }), 'created');
  const sorted = [...ids].sort((a, b) => (a < b ? -1 : 1));
  t.same(
    plantsOf(await store.listPlants('alice', undefined, 100)).map((plant) => plant.name),
    sorted.map(String),
  );
  const page = await store.listPlants('alice', INT64_MIN, 2);
  t.same(
    page,
    { json: JSON.stringify([{ name: String(INT64_MIN + 1n) }, { name: '-1' }]), lastId: -1n, cursor: encodeCursor(-1n), nextId: 0n },
    'the cursor id comes back as an exact bigint',
  );
  t.equal(typeof page.lastId, 'bigint');
  t.same(plantsOf(await store.listPlants('alice', INT64_MAX - 1n, 5)), [{ name: String(INT64_MAX) }]);
  t.ok(await store.deletePlant('alice', INT64_MAX));
  t.notOk(await store.deletePlant('alice', INT64_MAX), 'a second delete finds nothing');
  t.ok(await store.deletePlant('alice', INT64_MIN));
  t.equal(await store.addPlant('alice', { id: 2n ** 53n, name: String(2n ** 53n + 1n) }), 'conflict', '2^53 and 2^53+1 stay two plants');
});

t.test(
  'concurrent creates of one plant, from two pools as from two instances: one created, the rest decided in SQL',
  onlyOn('postgres'),
  async (t) => {
    const url = await freshUrl(t);
    const [a, b] = [await openStore(t, url), await openStore(t, url)];
    for (let round = 0; round < 10; round++) {
      const id = BigInt(round);
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).addPlant('alice', { id, name: i % 4 < 2 ? 'same' : 'other' })),
      );
      t.equal(results.filter((result) => result === 'created').length, 1, `round ${round}: created once`);
      const stored = plantsOf(await a.listPlants('alice', id === 0n ? undefined : id - 1n, 1))[0]!.name;
      const expected = results
        .map((_, i) => (i % 4 < 2 ? 'same' : 'other'))
        .map((name) => (name === stored ? ['created', 'unchanged'] : ['conflict']));
      t.ok(
        results.every((result, i) => expected[i]!.includes(result)),
        `round ${round}: identical content is unchanged, different content conflicts`,
      );
    }
    // Creates racing deletes of the same plant: every create is answered, and the end state is consistent.
    const mixed = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a.addPlant('bob', { id: 5n, name: 'x' }) : b.deletePlant('bob', 5n))),
    );
    t.ok(mixed.filter((_, i) => i % 2).every((result) => result === 'created' || result === 'unchanged'));
  },
);

t.test('a write is answered only after its commit: another connection already sees it', onlyOn('postgres'), async (t) => {
  const url = await freshUrl(t);
  const store = await openStore(t, url);
  await Promise.all(Array.from({ length: 50 }, (_, i) => store.addPlant('carol', { id: BigInt(i), name: `c${i}`, tag: 't' })));
  t.ok(await store.deletePlant('carol', 0n));
  t.equal((await adminQuery(url, "SELECT count(*)::int AS n FROM plants WHERE owner = 'carol'")).rows[0].n, 49);
});

/**
 * Counts the page reads a store sends and those PostgreSQL answered; while `hold` is set, a read's answer
 * is kept from the store until it resolves, as a slow network would.
 */
function watchReads(store: PostgresStore) {
  const watch = { sent: 0, answered: 0, hold: undefined as Promise<void> | undefined };
  const query = store.pool.query.bind(store.pool) as (config: pg.QueryConfig) => Promise<pg.QueryResult>;
  (store.pool as { query: unknown }).query = async (config: pg.QueryConfig) => {
    const hold = config.name?.endsWith('Page') ? ((watch.sent += 1), watch.hold) : undefined;
    const result = await query(config);
    if (config.name?.endsWith('Page')) watch.answered += 1;
    await hold;
    return result;
  };
  return watch;
}

t.test('requests for one page in one turn share a query; other pages and owners get their own', onlyOn('postgres'), async (t) => {
  const store = await openStore(t, await freshUrl(t));
  for (let i = 1n; i <= 3n; i++) await store.addPlant('alice', { id: i, name: `a${i}` });
  const reads = watchReads(store);
  const pages = await Promise.all([
    ...Array.from({ length: 10 }, () => store.listPlants('alice', undefined, 2)),
    store.listPlants('alice', undefined, 3),
    store.listPlants('alice', 1n, 2),
    store.listPlants('bob', undefined, 2),
  ]);
  t.equal(reads.sent, 4, 'one query for the ten, one for each other page');
  t.same(pages[0], { json: '[{"name":"a1"},{"name":"a2"}]', lastId: 2n, cursor: encodeCursor(2n), nextId: 3n });
  t.ok(
    pages.slice(0, 10).every((page) => page === pages[0]),
    'the ten share one page',
  );
  t.same(plantsOf(pages[10]!).length, 3);
  t.same(plantsOf(pages[11]!), [{ name: 'a2' }, { name: 'a3' }]);
  t.same(plantsOf(pages[12]!), []);
  await store.listPlants('alice', undefined, 2);
  t.equal(reads.sent, 5, 'a request in a later turn sends its own');
});

t.test(
  'a request never shares a query sent before it arrived: a write acknowledged by another instance meanwhile is in its page',
  onlyOn('postgres'),
  async (t) => {
    const url = await freshUrl(t);
    const [writer, reader] = [await openStore(t, url), await openStore(t, url)];
    await writer.addPlant('alice', { id: 2n, name: 'old' });
    const reads = watchReads(reader);
    let release!: () => void;
    reads.hold = new Promise((resolve) => (release = resolve));
    const early = reader.listPlants('alice', undefined, 10);
    await until(() => reads.answered > 0, 10_000, 'the early read answered (its answer held)'); // its snapshot is taken
    t.equal(await writer.addPlant('alice', { id: 1n, name: 'new' }), 'created');
    reads.hold = undefined;
    const late = reader.listPlants('alice', undefined, 10);
    await new Promise((resolve) => setImmediate(resolve)); // the end of the turn it arrived in
    t.equal(reads.sent, 2, 'the later request sent a query of its own');
    release();
    t.same(plantsOf(await late), [{ name: 'new' }, { name: 'old' }], 'and sees the acknowledged write');
    t.same(plantsOf(await early), [{ name: 'old' }], 'the earlier one is answered too, from before the write');
  },
);

/** Counts the statements of one name that a store sends. */
function countStatements(store: PostgresStore, name: string) {
  const seen = { sent: 0 };
  const query = store.pool.query.bind(store.pool) as (config: pg.QueryConfig) => Promise<pg.QueryResult>;
  (store.pool as { query: unknown }).query = (config: pg.QueryConfig) => {
    if (config.name === `plant-store-${name}`) seen.sent += 1;
    return query(config);
  };
  return seen;
}

t.test('creates in one turn share one statement; each gets its own answer', onlyOn('postgres'), async (t) => {
  const store = await openStore(t, await freshUrl(t));
  await store.addPlant('alice', { id: 1n, name: 'kept' });
  const inserts = countStatements(store, 'addPlants');
  const results = await Promise.all([
    ...Array.from({ length: 8 }, (_, i) => store.addPlant('bob', { id: BigInt(i), name: `b${i}`, ...(i % 2 && { tag: 't' }) })),
    store.addPlant('alice', { id: 1n, name: 'kept' }),
    store.addPlant('alice', { id: 1n, name: 'other' }),
  ]);
  t.same(results, [...Array<string>(8).fill('created'), 'unchanged', 'conflict']);
  t.equal(inserts.sent, 2, 'one statement for the turn, and one of its own for the plant created twice in it');
  t.same(
    plantsOf(await store.listPlants('bob', undefined, 10)),
    Array.from({ length: 8 }, (_, i) => ({ name: `b${i}`, ...(i % 2 && { tag: 't' }) })),
  );
  await store.addPlant('carol', { id: 1n, name: 'c' });
  t.equal(inserts.sent, 3, 'a create in a later turn sends its own');
});

t.test('a value PostgreSQL refuses fails its own create, not the others of its turn', onlyOn('postgres'), async (t) => {
  const store = await openStore(t, await freshUrl(t));
  // The API refuses control characters before any store sees them; the store must not rely on it.
  const [first, refused, last] = await Promise.allSettled([
    store.addPlant('alice', { id: 1n, name: 'a' }),
    store.addPlant('alice', { id: 2n, name: 'nul \u0000' }),
    store.addPlant('alice', { id: 3n, name: 'c' }),
  ]);
  t.same(
    [first, last],
    [
      { status: 'fulfilled', value: 'created' },
      { status: 'fulfilled', value: 'created' },
    ],
  );
  t.match(refused, { status: 'rejected', reason: { code: /^22/ } });
  t.same(plantsOf(await store.listPlants('alice', undefined, 10)), [{ name: 'a' }, { name: 'c' }]);
});

t.test('two instances creating the same plants in opposite orders never deadlock', onlyOn('postgres'), async (t) => {
  const url = await freshUrl(t);
  const [a, b] = [await openStore(t, url), await openStore(t, url)];
  for (let round = 0; round < 3; round++) {
    const ids = Array.from({ length: 300 }, (_, i) => BigInt(round * 1000 + i));
    const settled = await Promise.allSettled([
      ...ids.map((id) => a.addPlant('alice', { id, name: 'same' })),
      ...ids.toReversed().map((id) => b.addPlant('alice', { id, name: 'same' })),
    ]);
    const failed = settled.filter((result) => result.status === 'rejected');
    t.same(failed, [], `round ${round}: every create answered`);
    t.equal(settled.filter((result) => result.status === 'fulfilled' && result.value === 'created').length, 300, 'each plant created once');
  }
});

t.test('tokens: hashed, timestamps in UTC ISO form, revoked ones not found', onlyOn('postgres'), async (t) => {
  const store = await openStore(t, await freshUrl(t));
  const hash = Buffer.alloc(32, 7).toString('base64');
  const id = (await store.addTokens('alice', [hash]))[0]!;
  t.equal(id, 1);
  t.same(await store.findToken(hash), { tokenId: 1, user: 'alice' });
  t.equal(await store.findToken(Buffer.alloc(32, 8).toString('base64')), undefined);
  t.ok(await store.revokeToken(id));
  t.notOk(await store.revokeToken(id), 'revoking twice reports nothing to revoke');
  t.equal(await store.findToken(hash), undefined, 'a revoked token is not found');
  const [info] = await store.listTokens();
  t.match(info, {
    id: 1,
    user: 'alice',
    createdAt: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
    expiresAt: null,
    expired: false,
    revokedAt: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
  });
  t.equal(await store.countTokens(), 1);
});

t.test('a statement longer than the timeout is cancelled, so nothing waits forever', onlyOn('postgres'), async (t) => {
  const store = await openStore(t, await freshUrl(t), 300);
  const started = Date.now();
  await t.rejects(store.pool.query('SELECT pg_sleep(10)'), /timeout|cancel/i);
  t.ok(Date.now() - started < 2000, `gave up after ${Date.now() - started} ms`);
  t.equal(await store.readiness(), 'ready', 'and the store still answers');
});

t.test('sessions commit durably even where the server turned synchronous_commit off', onlyOn('postgres'), async (t) => {
  const url = await freshUrl(t);
  const database = new URL(url).pathname.slice(1);
  await adminQuery(url, `ALTER DATABASE ${database} SET synchronous_commit = off`);
  // Options of its own in the URL are kept, and ours are added to them.
  const store = await openStore(t, `${url}?options=${encodeURIComponent('-c search_path=public')}`);
  t.equal((await one(store, 'SHOW synchronous_commit')).synchronous_commit, 'on');
  t.equal((await one(store, 'SHOW search_path')).search_path, 'public');
  const client = new pg.Client(url);
  await client.connect();
  t.equal((await client.query('SHOW synchronous_commit')).rows[0].synchronous_commit, 'off', 'the server setting itself is left alone');
  await client.end();
});

t.test('a closed store is not ready', onlyOn('postgres'), async (t) => {
  const store = await openStore(t, await freshUrl(t));
  t.equal(await store.readiness(), 'ready');
  await store.close();
  t.equal(await store.readiness(), 'unreachable');
  await store.close(); // closing twice is harmless
});
