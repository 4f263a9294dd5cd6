// The SQLite engine (engine.ts) on a real file: reads of a round share one snapshot and the rows a
// round reads are capped; writes share one commit and fail alone; while another connection holds the
// write lock the event loop keeps turning, queued writes commit in their order once the lock is free,
// and past the bound they are refused with 503.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { openDatabase } from '../../../src/store/sqlite/database.js';
import { Engine, MAX_ROUND_ROWS } from '../../../src/store/sqlite/engine.js';
import { countCommits } from './commits.js';
import { tempDir } from '../../helpers/app.js';
import { until } from '../../helpers/until.js';

function setup(t: Parameters<typeof tempDir>[0], lockTimeoutMs: number) {
  const path = join(tempDir(t), 'plants.db');
  const db = openDatabase(path);
  const other = new Database(path);
  t.teardown(() => {
    other.close();
    db.close();
  });
  let foreignCommits = 0;
  const engine = new Engine(db, { lockTimeoutMs, onForeignCommit: () => foreignCommits++ });
  t.teardown(() => engine.close());
  const commits = countCommits(t);
  const insert = db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, ?)");
  const order: string[] = [];
  const write = (id: number, name: string) =>
    engine.write(() => {
      order.push(name);
      insert.run(id, name);
      return name;
    });
  return { db, path, other, engine, commits, write, order, foreignCommits: () => foreignCommits };
}

t.test('the connection never waits for a lock or the disk on the event loop', async (t) => {
  const { db } = setup(t, 1000);
  t.equal(db.pragma('busy_timeout', { simple: true }), 0);
  t.equal(db.pragma('synchronous', { simple: true }), 1, 'NORMAL: COMMIT does not sync; the engine syncs the WAL before any answer');
});

t.test('writes queued behind a lock held elsewhere wait on timers, then commit in their order', async (t) => {
  const { db, other, commits, write, order } = setup(t, 30_000);
  other.exec('BEGIN IMMEDIATE');
  const settled: string[] = [];
  const pending = ['a', 'b', 'c'].map((name, i) => write(i + 1, name).then((value) => void settled.push(value)));
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 1);
  await until(() => ticks >= 50, 10_000, 'the event loop turning while writes wait');
  // More writes while the first ones wait: they join the queue behind them.
  pending.push(...['d', 'e'].map((name, i) => write(i + 4, name).then((value) => void settled.push(value))));
  await until(() => ticks >= 100, 10_000, 'the event loop turning');
  clearInterval(ticker);
  t.same(settled, [], 'nothing is answered while the lock is held');
  t.equal(commits.count, 0);
  other.exec('COMMIT');
  await Promise.all(pending);
  t.same(order, ['a', 'b', 'c', 'd', 'e'], 'run in the order they came');
  t.same(settled, ['a', 'b', 'c', 'd', 'e'], 'answered in that order');
  t.same(db.prepare('SELECT name FROM plants ORDER BY id').pluck().all(), ['a', 'b', 'c', 'd', 'e'], 'and committed');
});

t.test('past the bound a write is refused with 503 and Retry-After, and changes nothing', async (t) => {
  const { db, other, write, order } = setup(t, 200);
  other.exec('BEGIN IMMEDIATE');
  const started = performance.now();
  const refused = await write(1, 'late').then(
    () => t.fail('committed while the lock was held'),
    (error: unknown) => error as { statusCode?: number; code?: string; retryAfter?: number; message: string },
  );
  const waited = performance.now() - started;
  t.match(refused, { statusCode: 503, code: 'PLANT_STORE_DATABASE_BUSY', retryAfter: 1, message: /Retry in 1 second\.$/ });
  t.ok(waited >= 190 && waited < 2000, `refused after ${Math.round(waited)} ms (bound 200 ms)`);
  t.same(order, [], 'the write never ran');
  other.exec('COMMIT');
  t.equal(await write(2, 'after'), 'after', 'the next write commits once the lock is free');
  t.same(db.prepare('SELECT name FROM plants').pluck().all(), ['after']);
});

t.test('a bound of 0 refuses at once when the lock is taken, and commits when it is free', async (t) => {
  const { other, write } = setup(t, 0);
  t.equal(await write(1, 'free'), 'free');
  other.exec('BEGIN IMMEDIATE');
  t.match(await write(2, 'taken').catch((error: unknown) => error), { statusCode: 503 });
  other.exec('ROLLBACK');
});

t.test('concurrent writes share one commit; a failing write is undone alone, however many statements it ran', async (t) => {
  const { db, path, engine, commits } = setup(t, 1000);
  const insert = db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, 'x')");
  const twoRows = db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', 4, 'x'), ('alice', 1, 'x')");
  const outcomes = await Promise.allSettled([
    engine.write(() => insert.run(1n)),
    engine.write(() => {
      insert.run(2n);
      insert.run(6n);
      throw new Error('this write fails after writing twice');
    }),
    engine.write(() => insert.run(1n)), // primary key violation
    engine.write(() => insert.run(3n)),
    engine.write(() => twoRows.run()), // its first row is written, its second fails
    engine.write(() => {
      insert.run(7n);
      insert.run(3n); // fails after a statement that succeeded
    }),
    engine.write(() => insert.run(5n)),
  ]);
  t.same(
    outcomes.map((outcome) => outcome.status),
    ['fulfilled', 'rejected', 'rejected', 'fulfilled', 'rejected', 'rejected', 'fulfilled'],
  );
  t.equal(commits.count, 1, 'one transaction');
  const reader = new Database(path, { readonly: true });
  t.same(reader.prepare("SELECT id FROM plants WHERE owner = 'alice' ORDER BY id").pluck().all(), [1, 3, 5]);
  reader.close();
});

t.test(
  'a write whose failure ends the transaction (as disk full or an I/O error do) fails its whole batch, and nothing of it is kept',
  async (t) => {
    const { db, path, engine } = setup(t, 1000);
    const insert = db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, 'x')");
    const rollback = db.prepare('ROLLBACK');
    const outcomes = await Promise.allSettled([
      engine.write(() => insert.run(1n)),
      engine.write(() => {
        rollback.run();
        throw new Error('the transaction ended under this write');
      }),
      engine.write(() => insert.run(3n)),
    ]);
    t.same(
      outcomes.map((outcome) => outcome.status),
      ['rejected', 'rejected', 'rejected'],
    );
    t.notOk(db.inTransaction);
    t.equal(await engine.write(() => insert.run(4n).changes), 1, 'the next write commits');
    const reader = new Database(path, { readonly: true });
    t.same(reader.prepare("SELECT id FROM plants WHERE owner = 'alice' ORDER BY id").pluck().all(), [4], 'the failed batch left nothing');
    reader.close();
  },
);

t.test('reads of one round share one look and one snapshot; a read that fails fails alone', async (t) => {
  const { db, other, engine, foreignCommits } = setup(t, 1000);
  const count = db.prepare('SELECT count(*) FROM plants').pluck();
  const otherInsert = other.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, 'elsewhere')");
  otherInsert.run(1);
  const results = await Promise.allSettled([
    engine.read(() => {
      const seen = count.get();
      otherInsert.run(2); // committed by another connection in the middle of the round
      return seen;
    }),
    engine.read(() => {
      throw new Error('this read fails');
    }),
    engine.read(() => count.get()),
  ]);
  t.same(
    results.map((result) => (result.status === 'fulfilled' ? result.value : 'rejected')),
    [1, 'rejected', 1],
    'the same snapshot: the commit made during the round is not seen by it',
  );
  t.equal(foreignCommits(), 1, "the round's look saw the commit made before it");
  t.equal(await engine.read(() => count.get()), 2, 'the next round sees it');
  t.equal(foreignCommits(), 2, 'and its look saw it');
  t.notOk(db.inTransaction, 'the round ended its read transaction');
});

t.test("a round reads at most MAX_ROUND_ROWS rows: the reads past them go after that round's answers", async (t) => {
  const { engine } = setup(t, 1000);
  const events: string[] = [];
  t.ok(1001 * 2 > MAX_ROUND_ROWS && 1001 + 1 <= MAX_ROUND_ROWS, 'the sizes this test relies on');
  const read = (name: string, rows: number) =>
    engine
      .read(() => {
        events.push(`read ${name}`);
        return name;
      }, rows)
      .then((value) => void events.push(`answer ${value}`));
  await Promise.all([read('a', 1001), read('b', 1001), read('c', 1001), read('token', 1)]);
  t.same(events, ['read a', 'read token', 'answer a', 'answer token', 'read b', 'answer b', 'read c', 'answer c']);
  events.length = 0;
  await Promise.all([read('x', 101), read('y', 101), read('z', 101)]);
  t.same(events, ['read x', 'read y', 'read z', 'answer x', 'answer y', 'answer z'], 'pages of 100 share one round');
});

t.test('a round whose look fails rejects its reads, and the next round works again', async (t) => {
  const { db, engine } = setup(t, 1000);
  db.exec('BEGIN'); // a transaction left open on the connection: the round's BEGIN fails
  await t.rejects(
    engine.read(() => 1),
    /within a transaction/,
  );
  db.exec('COMMIT');
  t.equal(await engine.read(() => 2), 2);
});
