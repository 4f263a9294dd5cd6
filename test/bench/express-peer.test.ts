// The Express peer keeps int64 ids exact, as the contract says: in the create body, the path and the cursor.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import t from 'tap';
import { BENCH_USER } from '../../bench/bench-user.js';
import { decodeCursor, encodeCursor } from '../../bench/cursors.js';
import { dataSet, workingCopy } from '../../bench/data.js';
import { bodyId, int64 } from '../../bench/servers/exact-id.js';
import { buildPeer } from '../../bench/servers/express-peer-app.js';
import { tempDir } from '../helpers/temp-dir.js';

const apiSpec = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));
const MAX = 9223372036854775807n;

t.test('ids are read exactly, or refused', async (t) => {
  t.equal(int64('9223372036854775807'), MAX);
  t.equal(int64('-9223372036854775808'), -MAX - 1n);
  t.equal(int64('9223372036854775808'), undefined, 'beyond int64');
  for (const text of ['1.0', '1e3', '-0', '01', '', ' 1', '0x10']) t.equal(int64(text), undefined, JSON.stringify(text));
  t.equal(bodyId('{"id":9223372036854775806,"name":"a"}'), MAX - 1n, 'not rounded to 2^63 as JSON.parse would');
  t.equal(bodyId('{"id":1.0,"name":"a"}'), undefined, 'a fraction is not an integer');
  t.equal(bodyId('{"id":"5","name":"a"}'), undefined, 'a string is not an integer');
  t.equal(bodyId('{"id":1,"id":2}'), undefined, 'a key twice with different values');
});

t.test('the peer creates, lists and deletes plants by exact int64 ids', async (t) => {
  const dir = tempDir(t);
  const { path, tokens } = await workingCopy(dataSet(join(dir, 'data'), 10_000), join(dir, 'peer.db'));
  const { app, close } = buildPeer(path, apiSpec);
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
    close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const headers = { authorization: `Bearer ${tokens.get(BENCH_USER)!}`, 'content-type': 'application/json' };
  const post = (body: string) => fetch(`${base}/plants`, { method: 'POST', headers, body });
  const list = (after: bigint, limit: number) => fetch(`${base}/plants?limit=${limit}&cursor=${encodeCursor(after)}`, { headers });
  const remove = (id: string) => fetch(`${base}/plants/${id}`, { method: 'DELETE', headers });

  t.equal((await post(`{"id":${MAX},"name":"Max"}`)).status, 200);
  t.equal((await post(`{"id":${MAX - 1n},"name":"Max minus one"}`)).status, 200, 'a different plant, not the same rounded id');
  t.equal((await post(`{"id":${MAX},"name":"Max"}`)).status, 200, 'the same create again is safe');
  t.equal((await post(`{"id":${MAX},"name":"Other"}`)).status, 409);
  t.equal((await post(`{"id":${MAX + 1n},"name":"Too far"}`)).status, 400);
  t.equal((await post('{"id":7.0,"name":"Fraction"}')).status, 400);

  const first = await list(MAX - 2n, 1);
  t.same(await first.json(), [{ name: 'Max minus one' }]);
  const link = /cursor=([A-Za-z0-9_-]+)>/.exec(first.headers.get('link') ?? '');
  t.equal(link && decodeCursor(link[1]!), MAX - 1n, 'the next cursor holds the exact id');
  t.same(await (await list(MAX - 2n, 5)).json(), [{ name: 'Max minus one' }, { name: 'Max' }]);

  const removed = await remove(String(MAX));
  t.equal(removed.status, 204, await removed.text());
  t.equal((await remove(String(MAX))).status, 404, 'gone, and only that one');
  t.equal((await remove(String(MAX + 1n))).status, 400);
  t.same(await (await list(MAX - 2n, 5)).json(), [{ name: 'Max minus one' }]);

  const db = new Database(path, { readonly: true });
  t.teardown(() => db.close());
  const stored = db
    .prepare('SELECT id FROM plants WHERE owner = ? AND id > ?')
    .pluck()
    .safeIntegers()
    .all(BENCH_USER, MAX - 10n);
  t.same(stored, [MAX - 1n], 'stored exactly');
});
