// `plant-store copy`: a SQLite file to a throwaway PostgreSQL and back, every row and checksum kept, old tokens working
// and `token create` after; and the refusals (a target that holds rows or exists, a URL that cannot be used).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { fetchChecked, tempDir } from '../helpers/app.js';
import { postgresBinDir } from '../helpers/postgres-cluster.js';
import { adminQuery, freshDatabase } from '../helpers/postgres-database.js';
import { freePort, runCli, startServer } from '../helpers/process.js';

const skip =
  process.env.PLANT_STORE_TEST_DATABASE_URL || postgresBinDir()
    ? false
    : 'no PostgreSQL here (no initdb, no PLANT_STORE_TEST_DATABASE_URL)';
const LISTING = 'application/vnd.plant-store.listing+json';
const MAX = '9223372036854775807';
const MIN = '-9223372036854775808';

type Env = Record<string, string>;
const sqliteEnv = (path: string): Env => ({ DATABASE_PATH: path, DATABASE_URL: '', REDIS_URL: '' });
const postgresEnv = (url: string): Env => ({ DATABASE_URL: url, DATABASE_PATH: '', REDIS_URL: '' });

/** Every token's columns but its hash, as `token list --json` shows them. */
const tokenList = async (env: Env) => (await runCli(['token', 'list', '--json'], env)).stdout;

/** The listed plants of a user, exact ids, as the raw JSON text. */
async function plantsOf(t: Parameters<typeof fetchChecked>[0], base: string, token: string): Promise<string> {
  const reply = await fetchChecked(t, base, '/plants?limit=1000', { headers: { authorization: `Bearer ${token}`, accept: LISTING } });
  t.equal(reply.status, 200);
  return reply.body;
}

/** The "plants: ..." and "tokens: ..." lines of a copy: counts and the checksum both sides agree on. */
function sums(stdout: string): { plants: string; tokens: string } {
  const line = (name: string) =>
    new RegExp(`^${name}: (\\d+) copied, sha256 ([0-9a-f]{64}) in the source and in the copy$`, 'm').exec(stdout);
  const plants = line('plants');
  const tokens = line('tokens');
  if (!plants || !tokens) throw new Error(`no counts and checksums in: ${stdout}`);
  return { plants: `${plants[1]} ${plants[2]}`, tokens: `${tokens[1]} ${tokens[2]}` };
}

t.test('SQLite -> PostgreSQL -> SQLite: every row, the same checksums, old tokens work, token create after', { skip }, async (t) => {
  const first = sqliteEnv(join(tempDir(t), 'plants.db'));
  const [alice, revoked] = (await runCli(['token', 'create', 'alice', '--count', '2', '--expires-in', '30d'], first)).stdout
    .trimEnd()
    .split('\n');
  const bob = (await runCli(['token', 'create', 'bob'], first)).stdout.trim();
  t.equal((await runCli(['token', 'revoke', '2'], first)).code, 0);
  const onSqlite = await startServer(t, first);
  const create = async (token: string, body: string) =>
    (
      await fetchChecked(t, onSqlite.url, '/plants', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      })
    ).status;
  for (const body of [
    `{"id":${MAX},"name":"max"}`,
    `{"id":9223372036854775806,"name":"max - 1","tag":""}`,
    `{"id":${MIN},"name":"min","tag":"cold"}`,
  ])
    t.equal(await create(alice!, body), 200);
  for (let id = 1; id <= 30; id++) t.equal(await create(bob, `{"id":${id},"name":"plant ${id} é","tag":"t${id % 3}"}`), 200);
  const alicePlants = await plantsOf(t, onSqlite.url, alice!);
  const bobPlants = await plantsOf(t, onSqlite.url, bob);
  t.match(alicePlants, `"id":${MIN}`);
  onSqlite.child.kill('SIGTERM');
  t.equal((await onSqlite.exit).code, 0);
  const sqliteTokens = await tokenList(first);
  t.match(sqliteTokens, /"lastUsedAt":"\d{4}-/, 'a last use was written, to be copied');

  const url = await freshDatabase(t);
  const copied = await runCli(['copy', '--to', url], first);
  t.equal(copied.code, 0, copied.stderr);
  const there = sums(copied.stdout);
  t.equal(there.plants.split(' ')[0], '33', '33 plants');
  t.equal(there.tokens.split(' ')[0], '3', '3 tokens');
  t.notOk((copied.stderr + copied.stdout).includes(`:${new URL(url).password}@`), 'no password printed');

  const pg = postgresEnv(url);
  t.equal(await tokenList(pg), sqliteTokens, 'every token column the same: ids, users, created, expiry, revocation, last use');
  const onPostgres = await startServer(t, pg);
  t.equal(await plantsOf(t, onPostgres.url, alice!), alicePlants, "alice's plants, exact ids");
  t.equal(await plantsOf(t, onPostgres.url, bob), bobPlants, "bob's plants");
  const status = async (token: string) =>
    (await fetchChecked(t, onPostgres.url, '/plants', { headers: { authorization: `Bearer ${token}` } })).status;
  t.equal(await status(revoked!), 401, 'the revoked token stays revoked');
  onPostgres.child.kill('SIGTERM');
  await onPostgres.exit;

  const carol = await runCli(['token', 'create', 'carol'], pg);
  t.equal(carol.code, 0, `token create after the copy: ${carol.stderr}`);
  t.match(carol.stderr, 'created token 4 for carol', 'the id after the largest copied (the identity sequence was moved)');

  const back = sqliteEnv(join(tempDir(t), 'back', 'plants.db'));
  const returned = await runCli(['copy', '--to', back.DATABASE_PATH!], pg);
  t.equal(returned.code, 0, returned.stderr);
  const again = sums(returned.stdout);
  t.equal(again.plants, there.plants, 'the same plants checksum, computed on PostgreSQL and on the new file');
  t.equal(again.tokens.split(' ')[0], '4', "4 tokens: carol's too");
  t.equal(await tokenList(back), await tokenList(pg), 'every token column the same on the new file');
  const onFile = await startServer(t, back);
  t.equal(await plantsOf(t, onFile.url, bob), bobPlants);
  t.equal(await plantsOf(t, onFile.url, carol.stdout.trim()), '[]', "carol's token works there too");
  onFile.child.kill('SIGTERM');
  await onFile.exit;
  t.match((await runCli(['token', 'create', 'dave'], back)).stderr, 'created token 5 for dave');
});

t.test('copy refuses a target that holds rows or exists, and a target it cannot use; nothing is changed', { skip }, async (t) => {
  const file = sqliteEnv(join(tempDir(t), 'plants.db'));
  await runCli(['token', 'create', 'alice'], file);
  const url = await freshDatabase(t);
  await runCli(['token', 'create', 'zed', '--count', '2'], postgresEnv(url));

  const full = await runCli(['copy', '--to', url], file);
  t.equal(full.code, 1);
  t.match(
    full.stderr,
    /the target PostgreSQL \S+ already holds 0 plants and 2 tokens: copy only into an empty database; nothing was changed/,
  );
  t.equal((await adminQuery(url, 'SELECT count(*)::int AS n FROM tokens')).rows[0].n, 2, 'the target is as it was');

  const password = 'hunter2';
  const away = await runCli(['copy', '--to', `postgres://app:${password}@127.0.0.1:${await freePort()}/plants`], {
    ...file,
    DATABASE_TIMEOUT_MS: '1000',
  });
  t.equal(away.code, 1);
  t.match(away.stderr, /cannot use the target PostgreSQL postgres:\/\/app@127\.0\.0\.1:\d+\/plants: .*ECONNREFUSED/);
  t.notMatch(away.stderr, password);

  for (const [to, message] of [
    ['plants.db', /--to must be a PostgreSQL URL/],
    ['postgres://[bad', /--to is not a URL/],
  ] as const) {
    const refused = await runCli(['copy', '--to', to], file);
    t.equal(refused.code, 2, `--to ${to}: exit 2`);
    t.match(refused.stderr, message);
  }
  t.equal((await runCli(['copy'], file)).code, 2, 'no --to');
  t.equal((await runCli(['copy', '--to', url, '--to', url], file)).code, 2, 'two --to');

  const existing = join(tempDir(t), 'existing.db');
  writeFileSync(existing, 'not empty');
  const pg = postgresEnv(url);
  const over = await runCli(['copy', '--to', existing], pg);
  t.equal(over.code, 1);
  t.match(over.stderr, `the target ${existing} already exists (9 bytes): copy only to a new file; nothing was changed`);
  t.equal(readFileSync(existing, 'utf8'), 'not empty', 'the file is untouched');
  const toPostgres = await runCli(['copy', '--to', url], pg);
  t.equal(toPostgres.code, 2);
  t.match(toPostgres.stderr, /use pg_dump and pg_restore/);

  const none = await runCli(['copy', '--to', url], sqliteEnv(join(tempDir(t), 'missing.db')));
  t.equal(none.code, 1);
  t.match(none.stderr, /there is no SQLite database at \S+missing\.db/);
});
