// The `plant-store token` commands against the same database the server uses.
import { join } from 'node:path';
import t from 'tap';
import { fetchChecked, tempDir } from './helpers/app.js';
import { freshStore, storeKind } from './helpers/store-under-test.js';
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
  for (const args of [['token', 'revoke', 'abc'], ['token'], ['token', 'create'], ['migrate', 'now'], ['frobnicate']]) {
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
