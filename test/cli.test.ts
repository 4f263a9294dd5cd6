// The `plant-store token` commands against the same database the server uses.
import { join } from 'node:path';
import t from 'tap';
import { fetchChecked, tempDir } from './helpers/app.js';
import { freshStore, onlyOn, storeKind } from './helpers/store-under-test.js';
import { freePort, runCli, startServer } from './helpers/process.js';

t.test('token create, list and revoke, on a database that does not exist yet', async (t) => {
  // For SQLite, in folders that do not exist yet either.
  const env = storeKind === 'sqlite' ? { DATABASE_PATH: join(tempDir(t), 'new', 'folder', 'plants.db') } : (await freshStore(t)).env;
  const created = await runCli(['token', 'create', 'alice'], env);
  t.equal(created.code, 0);
  t.match(created.stdout, /^pst_[A-Za-z0-9_-]{43}\n$/, 'only the token, for scripts');
  const token = created.stdout.trim();
  await runCli(['token', 'create', 'bob'], env);

  const listed = await runCli(['token', 'list'], env);
  t.equal(listed.code, 0);
  t.match(listed.stdout, /^ID\tUSER\tCREATED\tSTATE\n1\talice\t\S+\tactive\n2\tbob\t\S+\tactive\n$/);
  t.notMatch(listed.stdout, /pst_/, 'never the tokens');

  const server = await startServer(t, env);
  const auth = { headers: { authorization: `Bearer ${token}` } };
  t.equal((await fetchChecked(t, server.url, '/plants', auth)).status, 200);
  const revoked = await runCli(['token', 'revoke', '1'], env);
  t.equal(revoked.code, 0);
  const refused = await fetchChecked(t, server.url, '/plants', auth);
  t.equal(refused.status, 401, 'refused on its next request, without a restart');
  t.equal(refused.headers['www-authenticate'], 'Bearer realm="plant-store", error="invalid_token"');
  t.match((await runCli(['token', 'list'], env)).stdout, /1\talice\t\S+\trevoked \S+/);
});

t.test('migrate brings a new database up to date and exits', async (t) => {
  const { env } = await freshStore(t);
  const migrated = await runCli(['migrate'], env);
  t.equal(migrated.code, 0);
  t.match(migrated.stderr, /schema is up to date/);
  t.equal((await runCli(['migrate'], env)).code, 0, 'running it again changes nothing');
  t.match((await runCli(['token', 'list'], env)).stdout, /^ID\tUSER\tCREATED\tSTATE\n$/);
});

t.test('a PostgreSQL database that cannot be reached stops start-up: exit 1, no password in the message', async (t) => {
  const env = { DATABASE_URL: `postgres://app:hunter2@127.0.0.1:${await freePort()}/plants`, DATABASE_TIMEOUT_MS: '1000' };
  for (const args of [['serve'], ['migrate']]) {
    const result = await runCli(args, env);
    t.equal(result.code, 1, args.join(' '));
    t.match(result.stderr, /^plant-store: .*ECONNREFUSED/, `${args.join(' ')}: ${result.stderr.trim()}`);
    t.notMatch(result.stderr, /hunter2/);
  }
});

t.test('mistakes are explained', async (t) => {
  const { env } = await freshStore(t);
  const unknown = await runCli(['token', 'revoke', '42'], env);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /no active token has id 42/);
  const missing = {
    '': 'a command is missing',
    token: 'a token command is missing: create, list or revoke',
    'token create': 'a user name is missing: plant-store token create <user>',
    'token revoke': 'a token id is missing',
  };
  for (const [args, message] of Object.entries(missing)) {
    const result = await runCli(args === '' ? [] : args.split(' '), env);
    t.equal(result.code, 2, `"${args}": exit code 2`);
    t.match(result.stderr, `plant-store: ${message}`);
    t.match(result.stderr, /Usage:/);
  }
  for (const args of [['token', 'revoke', 'abc'], ['token', 'frobnicate'], ['migrate', 'now'], ['frobnicate']]) {
    const result = await runCli(args, env);
    t.equal(result.code, 2, args.join(' '));
    t.match(result.stderr, /Usage:/);
  }
  const badUser = await runCli(['token', 'create', 'no spaces'], env);
  t.equal(badUser.code, 1);
  t.match(badUser.stderr, /not a valid user name/);
  const help = await runCli(['--help'], env);
  t.equal(help.code, 0);
  t.match(help.stdout, /token create <user>/);
});

t.test('every command says which database it used, and that it created one', async (t) => {
  const { env } = await freshStore(t);
  const first = await runCli(['token', 'create', 'alice'], env);
  const again = await runCli(['token', 'list'], env);
  if (storeKind === 'sqlite') {
    t.match(first.stderr, `plant-store: using the SQLite file ${env.DATABASE_PATH} (it did not exist: created it, empty)\n`);
    t.equal(again.stderr, `plant-store: using the SQLite file ${env.DATABASE_PATH}\n`);
  } else {
    const named = new URL(env.DATABASE_URL!);
    named.password = '';
    t.equal(again.stderr, `plant-store: using the PostgreSQL ${named.href}\n`);
    if (new URL(env.DATABASE_URL!).password !== '') t.notMatch(again.stderr, new URL(env.DATABASE_URL!).password);
  }
  t.match(first.stdout, /^pst_/, 'stdout still holds only the token');
});

t.test('run from another folder, the default database is that folder\'s, and the command says so', onlyOn('sqlite'), async (t) => {
  const folder = tempDir(t);
  const created = await runCli(['token', 'create', 'dave'], { DATABASE_PATH: '', DATABASE_URL: '' }, folder);
  t.equal(created.code, 0);
  t.match(created.stderr, `using the SQLite file ${join(folder, 'data', 'plants.db')} (it did not exist: created it, empty)`);
});

t.test('a DATABASE_PATH that is a folder is named in the message', onlyOn('sqlite'), async (t) => {
  const folder = tempDir(t);
  for (const args of [['token', 'list'], ['serve']]) {
    const result = await runCli(args, { DATABASE_PATH: folder, DATABASE_URL: '' });
    t.equal(result.code, 1, args.join(' '));
    t.match(result.stderr, `cannot open the SQLite database ${folder}: it is a folder; DATABASE_PATH must name a file`);
  }
});
