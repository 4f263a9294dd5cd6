// A SQLite file damaged while the service runs (pages overwritten underneath it): the read that meets
// the damage answers 503 with Retry-After and the Error shape, one error names the file and how to
// recover, and /readyz turns 503, so a load balancer stops sending traffic here.
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { createToken } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { bearer, inject, tempDir } from '../helpers/app.js';

const skip = process.env.PLANT_STORE_TEST_STORE === 'postgres' ? 'a SQLite file test' : undefined;

t.test('damage met while serving: 503, one error naming the file, /readyz 503', { skip }, async (t) => {
  const path = join(tempDir(t), 'plants.db');
  const seed = new SqliteStore(path);
  const { token } = await createToken(seed, 'alice');
  await seed.close();
  const db = new Database(path);
  const insert = db.prepare("INSERT INTO plants (owner, id, name) VALUES ('alice', ?, ?)");
  db.transaction(() => {
    for (let id = 1; id <= 3000; id++) insert.run(id, `plant ${id} ${'x'.repeat(100)}`);
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  const pages = db.pragma('page_count', { simple: true }) as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;

  const lines: string[] = [];
  const app = await buildApp(
    { ...loadConfig({}), logLevel: 'info', databasePath: path, rateLimitPerMinute: 0 },
    { logStream: { write: (line) => void lines.push(line) } },
  );
  t.teardown(async () => {
    db.close();
    await app.close();
  });
  t.equal((await inject(t, app, { url: '/plants?limit=1000', headers: bearer(token) })).status, 200, 'whole before the damage');

  // Garbage over the plants' pages (the tokens table's pages come first and stay whole), then a
  // commit from another connection, so the service reads the file again rather than its cache.
  const fd = openSync(path, 'r+');
  for (let page = Math.floor(pages / 2); page < pages; page++) writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, page * pageSize);
  closeSync(fd);
  db.prepare("UPDATE tokens SET user = user WHERE user = 'alice'").run();

  let damaged;
  for (let url: string | undefined = '/plants?limit=1000'; url !== undefined && damaged === undefined;) {
    const answer = await inject(t, app, { url, headers: bearer(token) });
    if (answer.status !== 200) damaged = answer;
    url = /<([^>]+)>; rel="next"/.exec(String(answer.headers.link ?? ''))?.[1];
  }
  if (damaged === undefined) return void t.fail('no read met the damage');
  t.pass('a read met the damage');
  t.equal(damaged.status, 503);
  t.match(damaged.headers['retry-after'], /^\d+$/);
  t.match(damaged.json(), { error: 503, message: /database file is damaged/ });
  const errors = lines.map((line) => JSON.parse(line)).filter((line) => line.level === 50 && String(line.msg).includes(path));
  t.equal(errors.length, 1, 'one error names the file');
  t.match(errors[0]?.msg, /damaged.*(backup|\.recover)/);
  t.equal((await inject(t, app, { url: '/readyz' })).status, 503, '/readyz 503');
  t.equal((await inject(t, app, { url: '/healthz' })).status, 200, '/healthz 200: the process is up');
});
