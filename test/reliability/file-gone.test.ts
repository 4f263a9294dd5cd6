// The SQLite file deleted or replaced under a running service: SQLite would go on writing to the file it
// has open, unlinked, and lose every acknowledged write at the next restart. Writes answer 503 with
// Retry-After and store nothing, reads go on, /readyz turns 503 (/healthz stays 200: the process holds
// the only copy), and one error names the file and where its data can still be copied from.
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { createToken } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { bearer, inject, tempDir } from '../helpers/app.js';
import { logged, startServer } from '../helpers/process.js';

const skip = process.env.PLANT_STORE_TEST_STORE === 'postgres' ? 'a SQLite file test' : undefined;

for (const how of ['deleted', 'replaced'] as const) {
  t.test(`the file ${how} while serving: writes 503, reads go on, /readyz 503, one error`, { skip }, async (t) => {
    const dir = tempDir(t);
    const path = join(dir, 'plants.db');
    const seed = new SqliteStore(path);
    const { token } = await createToken(seed, 'alice');
    await seed.close();
    const lines: string[] = [];
    const app = await buildApp(
      { ...loadConfig({}), logLevel: 'info', databasePath: path, rateLimitPerMinute: 0 },
      { logStream: { write: (line) => void lines.push(line) } },
    );
    t.teardown(() => app.close());
    const create = (id: number) =>
      inject(t, app, { method: 'POST', url: '/plants', headers: bearer(token), payload: { id, name: `plant ${id}` } });
    t.equal((await create(1)).status, 200, 'a write before');
    t.equal((await inject(t, app, { url: '/readyz' })).status, 200, 'ready before');

    if (how === 'deleted') rmSync(path);
    else {
      // A restore, or another instance's new file, moved into place: another file at the same path.
      const other = new SqliteStore(join(dir, 'other.db'));
      await other.close();
      renameSync(join(dir, 'other.db'), path);
    }

    for (const id of [2, 3]) {
      const refused = await create(id);
      t.equal(refused.status, 503, `write ${id}: 503`);
      t.equal(refused.headers['retry-after'], '30');
      t.match(refused.json(), { error: 503, message: /database file was deleted or replaced while in use; nothing was changed/ });
    }
    const listed = await inject(t, app, { url: '/plants', headers: bearer(token) });
    t.equal(listed.status, 200, 'reads go on, from the file this process has open');
    t.same(
      listed.json().map((plant: { name: string }) => plant.name),
      ['plant 1'],
      'the refused writes stored nothing',
    );
    t.equal((await inject(t, app, { url: '/readyz' })).status, 503, '/readyz 503: a load balancer steers away');
    t.equal((await inject(t, app, { url: '/healthz' })).status, 200, '/healthz 200: the process holds the only copy of the data');
    const errors = lines.map((line) => JSON.parse(line)).filter((line) => line.level === 50 && String(line.msg).includes(path));
    t.equal(errors.length, 1, 'one error names the file');
    t.match(errors[0]?.msg, new RegExp(`was ${how} while in use.*ls -l /proc/${process.pid}/fd`));
  });
}

t.test('the file moved away and back is the same file: nothing changes', { skip }, async (t) => {
  const path = join(tempDir(t), 'plants.db');
  const seed = new SqliteStore(path);
  const { token } = await createToken(seed, 'alice');
  await seed.close();
  const app = await buildApp({ ...loadConfig({}), logLevel: 'silent', databasePath: path, rateLimitPerMinute: 0 });
  t.teardown(() => app.close());
  renameSync(path, `${path}.moved`);
  renameSync(`${path}.moved`, path);
  const created = await inject(t, app, { method: 'POST', url: '/plants', headers: bearer(token), payload: { id: 1, name: 'fern' } });
  t.equal(created.status, 200, 'moved away and back: still the file this process opened');
  t.equal((await inject(t, app, { url: '/readyz' })).status, 200);
});

// The store is opened before the app in `plant-store serve`: its reports must still reach the process's log.
t.test('plant-store serve: the file deleted, one error on its log, writes 503, /readyz 503', { skip }, async (t) => {
  const path = join(tempDir(t), 'plants.db');
  const seed = new SqliteStore(path);
  const { token } = await createToken(seed, 'alice');
  await seed.close();
  const server = await startServer(t, { DATABASE_PATH: path, DATABASE_URL: '', BOOTSTRAP_TOKEN: 'off', RATE_LIMIT_PER_MINUTE: '0' });
  const create = (id: number) =>
    fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ id, name: `plant ${id}` }),
    });
  t.equal((await create(1)).status, 200);
  const reported = logged(server, /"level":50,.*was deleted while in use/);
  rmSync(path);
  const refused = await create(2);
  t.equal(refused.status, 503);
  t.equal(refused.headers.get('retry-after'), '30');
  await reported;
  t.pass('the error is on the log');
  t.equal((await fetch(`${server.url}/readyz`)).status, 503);
  t.equal((await fetch(`${server.url}/healthz`)).status, 200);
});
