// Commits made durable off the event loop (engine.ts): with the sync of the WAL file held by the
// test (the real fdatasync, run when the test lets it), a write is answered only after its sync, no read
// of this process sees it before, commits made meanwhile wait for the next sync, and a failed sync
// stops the store.
import { fdatasync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { hashToken } from '../../../src/auth/tokens.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { SyncFile } from '../../../src/store/sqlite/engine.js';
import { countCommits } from './commits.js';
import { tempDir } from '../../helpers/app.js';
import { until } from '../../helpers/until.js';

/** A store whose syncs wait for `release()`; `failNext` makes the next one fail as a disk would. */
function openStore(t: Test) {
  const path = join(tempDir(t), 'plants.db');
  const held: Array<() => void> = [];
  let failNext = false;
  let holding = true;
  const syncFile: SyncFile = (fd, done) => {
    const fail = failNext;
    failNext = false;
    const sync = () => (fail ? done(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })) : fdatasync(fd, done));
    if (holding) held.push(sync);
    else sync();
  };
  const store = new SqliteStore(path, { syncFile });
  const commits = countCommits(t);
  const writer = store.forRequest();
  t.teardown(async () => {
    holding = false; // closing writes the token uses noted: their sync runs at once
    while (held.length > 0) held.shift()!();
    await store.close();
  });
  const release = async () => {
    await until(() => held.length > 0, 5000, 'a sync under way');
    held.shift()!();
  };
  return { store, writer, commits, path, held, release, failOnce: () => (failNext = true) };
}

/** Whether a promise has settled, read without waiting for it. */
function watch<T>(promise: Promise<T>) {
  const state = { settled: false, value: undefined as T | undefined, error: undefined as unknown };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

/** Lets the event loop go round `count` times: long enough for anything not held back to happen. */
async function turns(count = 10): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

const plant = (id: bigint, name = `plant ${id}`) => ({ id, name });
const idsOf = (json: string) => (JSON.parse(json) as Array<{ name: string }>).map((p) => p.name);

t.test('a write is answered only after a sync that began after its COMMIT', async (t) => {
  const { writer, path, held, release } = openStore(t);
  const write = watch(writer.addPlant('alice', plant(1n)));
  await until(() => held.length === 1, 5000, 'the sync asked for');
  const other = new Database(path, { readonly: true });
  t.teardown(() => other.close());
  t.equal(other.prepare('SELECT count(*) FROM plants').pluck().get(), 1, 'committed (another connection sees it)');
  await turns();
  t.notOk(write.settled, 'not answered while its sync is held');
  await release();
  await until(() => write.settled, 5000, 'the answer after the sync');
  t.equal(write.value, 'created');
});

t.test('no read of this process sees a write before it is durable, cached first pages included', async (t) => {
  const { store, writer, release } = openStore(t);
  await Promise.all([writer.addPlant('alice', plant(10n)), release()]);
  const request = store.forRequest();
  t.same(idsOf((await request.listPlants('alice', undefined, 20)).json), ['plant 10'], 'the first page, now cached');

  // A plant that lands on the cached page, committed, its sync held.
  const write = watch(writer.addPlant('alice', plant(5n)));
  await turns();
  const sameRequest = watch(request.listPlants('alice', undefined, 20)); // this request has read already
  const nextRequest = watch(store.forRequest().listPlants('alice', undefined, 20));
  const atCursor = watch(store.forRequest().listPlants('alice', 1n, 20));
  await turns();
  t.notOk(sameRequest.settled || nextRequest.settled || atCursor.settled || write.settled, 'every read waits for the sync');
  await release();
  await until(() => sameRequest.settled && nextRequest.settled && atCursor.settled && write.settled, 5000, 'the answers');
  for (const read of [sameRequest, nextRequest, atCursor]) t.same(idsOf(read.value!.json), ['plant 5', 'plant 10'], 'and then they see it');
});

t.test('writes made during a sync wait for it, then share the next commit and its sync', async (t) => {
  const { writer, commits, held, release } = openStore(t);
  const first = watch(writer.addPlant('alice', plant(1n)));
  await until(() => held.length === 1, 5000, 'the first sync');
  t.equal(commits.count, 1);
  const later = [watch(writer.addPlant('alice', plant(2n))), watch(writer.deletePlant('alice', 1n))];
  await turns();
  t.equal(commits.count, 1, 'no commit while the sync runs');
  t.equal(held.length, 1, 'one sync under way');
  await release();
  await until(() => first.settled && commits.count === 2, 5000, 'the first answered, then the next commit');
  t.notOk(
    later.some((write) => write.settled),
    'the later writes wait for their own sync',
  );
  await release();
  await until(() => later.every((write) => write.settled), 5000, 'their answers');
  t.same(
    later.map((write) => write.value),
    ['created', true],
  );
  t.equal(commits.count, 2, 'both shared one commit');
});

t.test('reads waiting for a sync go before the writes waiting with them', async (t) => {
  const { store, writer, release } = openStore(t);
  const first = watch(writer.addPlant('alice', plant(1n)));
  await turns();
  const read = watch(store.forRequest().listPlants('alice', undefined, 20));
  const write = watch(writer.addPlant('alice', plant(2n)));
  await release();
  await until(() => first.settled && read.settled, 5000, 'the first write and the read answered');
  t.same(idsOf(read.value!.json), ['plant 1'], 'the read ran before the next commit');
  t.notOk(write.settled, 'the second write waits for its own sync');
  await release();
  await until(() => write.settled, 5000, 'the second write answered');
});

t.test('during a sync a known token and the first pages the commit left alone are answered; what it changed waits', async (t) => {
  const { store, writer, release } = openStore(t);
  const created = Promise.all([store.addTokens('alice', [hashToken('pst_known')]), store.addTokens('bob', [hashToken('pst_unread')])]);
  const [[[knownId = NaN]]] = await Promise.all([created, writer.addPlant('alice', plant(10n)), release()]);
  const warm = store.forRequest();
  t.same(await warm.findToken(hashToken('pst_known')), { tokenId: knownId, user: 'alice' });
  const page = await warm.listPlants('alice', undefined, 20); // both cached now

  const write = watch(writer.addPlant('bob', plant(1n))); // another owner: alice's page stays
  await turns();
  const request = store.forRequest();
  const owner = watch(request.findToken(hashToken('pst_known')));
  const unread = watch(store.forRequest().findToken(hashToken('pst_unread')));
  const atCursor = watch(store.forRequest().listPlants('alice', 1n, 20));
  await until(() => owner.settled, 5000, 'the known token checked during the sync');
  t.same(owner.value, { tokenId: knownId, user: 'alice' });
  t.equal(await request.listPlants('alice', undefined, 20), page, 'the cached first page answered during the sync');
  t.equal(await store.forRequest().listPlants('alice', undefined, 20), page, 'also as the first read of a request');
  await turns();
  t.notOk(write.settled || unread.settled || atCursor.settled, 'the write, a token never read and a page to read wait');
  await release();
  await until(() => write.settled && unread.settled && atCursor.settled, 5000, 'answered after the sync');
  t.same(unread.value, { tokenId: knownId + 1, user: 'bob' });

  const revoke = watch(store.revokeToken(knownId));
  await turns();
  const afterRevoke = watch(store.forRequest().findToken(hashToken('pst_known')));
  await turns();
  t.notOk(revoke.settled || afterRevoke.settled, 'a token whose revocation is being synced is not checked from the cache');
  await release();
  await until(() => afterRevoke.settled, 5000, 'checked after the sync');
  t.equal(afterRevoke.value, undefined, 'and refused');
});

t.test('a failed sync stops the store: its writes and everything after are refused, and it is not ready', async (t) => {
  const { store, writer, held, release, failOnce } = openStore(t);
  await Promise.all([writer.addPlant('alice', plant(1n)), release()]);
  const looked = store.forRequest();
  t.equal(await looked.findToken('x'), undefined);
  await looked.listPlants('bob', undefined, 20); // now cached, and this request has had its look
  failOnce();
  const write = watch(writer.addPlant('alice', plant(2n)));
  await until(() => held.length > 0, 5000, 'its commit made, its sync asked for');
  const read = watch(store.forRequest().listPlants('alice', undefined, 20));
  await release();
  await until(() => write.settled && read.settled, 5000, 'both refused');
  t.match(String(write.error), /WAL file could not be synced to disk \(EIO.*restart Plant Store/);
  t.equal(read.error, write.error, 'the read waiting for it too: it would have seen the write');
  await t.rejects(writer.addPlant('alice', plant(3n)), /could not be synced/, 'a later write');
  await t.rejects(store.forRequest().findToken('x'), /could not be synced/, 'a later read');
  await t.rejects(looked.listPlants('bob', undefined, 20), /could not be synced/, 'a cached page, to a request that has looked');
  t.not(await store.readiness(), 'ready', '/readyz fails');
});

t.test('close waits for the sync under way', async (t) => {
  const { store, writer, release } = openStore(t);
  const write = watch(writer.addPlant('alice', plant(1n)));
  await turns();
  const closed = watch(store.close());
  await turns();
  t.notOk(closed.settled || write.settled, 'nothing closed while the sync is held');
  await release();
  await until(() => closed.settled && write.settled, 5000, 'closed after the answer');
  t.equal(write.value, 'created');
  t.equal(closed.error, undefined);
});
