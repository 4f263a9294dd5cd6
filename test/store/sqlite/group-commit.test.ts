// Group commit while another connection holds the write lock: the event loop keeps turning, queued
// writes commit in their order once the lock is free, and past the bound they are refused with 503.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { openDatabase } from '../../../src/store/sqlite/database.js';
import { GroupCommit } from '../../../src/store/sqlite/group-commit.js';
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
  const writes = new GroupCommit(db, { lockTimeoutMs });
  const insert = db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, ?)");
  const order: string[] = [];
  const write = (id: number, name: string) =>
    writes.run(() => {
      order.push(name);
      insert.run(id, name);
      return name;
    });
  return { db, other, writes, write, order };
}

t.test('the runtime connection never waits for a lock on the event loop', async (t) => {
  const { db } = setup(t, 1000);
  t.equal(db.pragma('busy_timeout', { simple: true }), 0);
});

t.test('writes queued behind a lock held elsewhere wait on timers, then commit in their order', async (t) => {
  const { db, other, writes, write, order } = setup(t, 30_000);
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
  t.equal(writes.commits, 0);
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
  t.match(refused, { statusCode: 503, code: 'PLANT_STORE_DATABASE_BUSY', retryAfter: 1, message: /Retry in 1 seconds/ });
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
