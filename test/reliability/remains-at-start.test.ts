// A restart after the database file was deleted, its -wal and -shm still there: every command that opens it refuses,
// naming them and what to do, and none creates a new, empty database (with a new bootstrap token) over them.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { fetchChecked, tempDir } from '../helpers/app.js';
import { runCli, startServer } from '../helpers/process.js';

t.test(
  'a -wal and -shm without their database: serve and the CLI refuse, naming them; nothing is created',
  { skip: process.env.PLANT_STORE_TEST_STORE === 'postgres' && 'a SQLite file test' },
  async (t) => {
    const dir = tempDir(t);
    const env = { DATABASE_PATH: join(dir, 'plants.db'), DATABASE_URL: '', REDIS_URL: '' };
    const token = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
    const server = await startServer(t, env);
    const created = await fetchChecked(t, server.url, '/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, name: 'fern' }),
    });
    t.equal(created.status, 200);
    server.child.kill('SIGKILL');
    await server.exit;
    rmSync(env.DATABASE_PATH); // the mistake: the file deleted, its -wal (holding the fern) left
    const left = readdirSync(dir).sort();
    t.same(left, ['plants.db-shm', 'plants.db-wal']);

    for (const args of [
      ['serve'],
      ['token', 'list'],
      ['token', 'create', 'bob'],
      ['migrate'],
      ['migrate', '--status'],
      ['backup', join(dir, 'b.db')],
      ['check'],
    ]) {
      const refused = await runCli(args, { ...env, PORT: '0' });
      t.equal(refused.code, 1, `${args.join(' ')}: exit 1`);
      t.match(
        refused.stderr,
        `there is no SQLite database at ${env.DATABASE_PATH}, but ${env.DATABASE_PATH}-wal (`,
        `${args.join(' ')}: names the -wal`,
      );
      t.match(refused.stderr, /Plant Store does not create a new database over them. Put the database file back/, 'and what to do');
      t.notMatch(refused.stdout, /pst_/, 'no new token');
      t.same(readdirSync(dir).sort(), left, 'nothing created');
    }
    t.notOk(existsSync(env.DATABASE_PATH));
  },
);
