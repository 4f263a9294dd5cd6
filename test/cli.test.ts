// The `plant-store token` commands against the same database the server uses.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createToken } from '../src/auth/tokens.js';
import { databaseSettings } from '../src/database-settings.js';
import { openStore } from '../src/store/open-store.js';
import { fetchChecked, tempDir } from './helpers/app.js';
import { freshStore, onlyOn, storeKind } from './helpers/store-under-test.js';
import { projectRoot } from './helpers/paths.js';
import { lastNotRefused } from './helpers/until.js';
import { cliCommand, finished, freePort, runCli, startServer } from './helpers/process.js';

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
  t.match(
    listed.stdout,
    /^ID\tUSER\tCREATED\tSTATE\tEXPIRES\tLAST USED\n1\talice\t\S+\tactive\tnever\t-\n2\tbob\t\S+\tactive\tnever\t-\n$/,
  );
  t.notMatch(listed.stdout, /pst_/, 'never the tokens');

  const server = await startServer(t, env);
  const auth = { headers: { authorization: `Bearer ${token}` } };
  t.equal((await fetchChecked(t, server.url, '/plants', auth)).status, 200);
  const revoked = await runCli(['token', 'revoke', '1'], env);
  t.equal(revoked.code, 0);
  if (storeKind === 'postgres') {
    // An instance caches a token's owner for under a second (token-cache.ts): refused within 1 s of the commit.
    const status = async () => (await fetchChecked(t, server.url, '/plants', auth)).status === 401;
    const last = await lastNotRefused(status, 10_000, 'the revoked token refused');
    t.ok(last < 1000, `accepted last by a request sent ${last.toFixed(1)} ms after the revocation`);
  }
  const refused = await fetchChecked(t, server.url, '/plants', auth);
  t.equal(refused.status, 401, 'refused on its next request (PostgreSQL: within 1 s), without a restart');
  t.equal(refused.headers['www-authenticate'], 'Bearer realm="plant-store", error="invalid_token"');
  t.match((await runCli(['token', 'list'], env)).stdout, /1\talice\t\S+\trevoked \S+\tnever\t\S+\n/);
});

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/.source;

t.test('token create whose stdout cannot take the token revokes it and fails', onlyOn('sqlite'), async (t) => {
  const env = { DATABASE_PATH: join(tempDir(t), 'plants.db'), DATABASE_URL: '' };
  const [node, args] = cliCommand(['token', 'create']);
  const quoted = [node, ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
  // A reader that has gone (EPIPE: `true` exits long before the database is open); a full disk.
  for (const [what, redirect] of [
    ['a reader gone', `${quoted} piped | true`],
    ['a full disk', `${quoted} full > /dev/full`],
  ]) {
    const child = spawn('bash', ['-c', `set -o pipefail; ${redirect!}`], {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const done = await finished(child);
    t.not(done.code, 0, `${what}: a failure`);
    t.match(done.stderr, /the token could not be written to stdout .*, so token \d+ was revoked/, `${what}: says so`);
  }
  const listed = await runCli(['token', 'list'], env);
  const states = listed.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t')[3]);
  t.equal(states.length, 2);
  t.ok(
    states.every((state) => state?.startsWith('revoked')),
    `none is usable: ${states.join(', ')}`,
  );
});

t.test('token create --expires-in and --expires-at; token list shows expiry, state and last use', async (t) => {
  const { env } = await freshStore(t);
  const before = Date.now();
  const expiring = await runCli(['token', 'create', 'alice', '--expires-in', '30d'], env);
  const after = Date.now();
  t.equal(expiring.code, 0);
  t.match(expiring.stdout, /^pst_[A-Za-z0-9_-]{43}\n$/, 'stdout: the token alone, as without an expiry');
  const said = new RegExp(`created token 1 for alice; it expires at (${ISO})\n`).exec(expiring.stderr);
  t.ok(said, `stderr says when it expires: ${expiring.stderr.trim()}`);
  const expiresAt = Date.parse(said![1]!);
  const DAYS_30 = 30 * 24 * 3_600_000;
  t.ok(expiresAt >= before + DAYS_30 && expiresAt <= after + DAYS_30, 'in 30 days');

  const forever = await runCli(['token', 'create', 'bob'], env);
  t.match(forever.stderr, 'created token 2 for bob; it never expires\n');
  const at = await runCli(['token', 'create', '--expires-at=2099-01-01T00:00:00+02:00', 'carol'], env);
  t.equal(at.code, 2, 'more than 5 years ahead');
  t.match(at.stderr, /--expires-at 2099-01-01T00:00:00\+02:00 is too far ahead/);
  const soon = new Date(Date.now() + 3_600_000);
  const carol = await runCli(['token', 'create', '--expires-at', soon.toISOString(), 'carol'], env);
  t.equal(carol.code, 0);
  t.match(carol.stderr, `created token 3 for carol; it expires at ${soon.toISOString()}\n`);

  const server = await startServer(t, env);
  const token = expiring.stdout.trim();
  const used = Date.now();
  t.equal((await fetchChecked(t, server.url, '/plants', { headers: { authorization: `Bearer ${token}` } })).status, 200);
  server.child.kill('SIGTERM');
  t.equal((await server.exit).code, 0);

  const listed = (await runCli(['token', 'list'], env)).stdout;
  const lines = listed.trimEnd().split('\n');
  t.equal(lines[0], 'ID\tUSER\tCREATED\tSTATE\tEXPIRES\tLAST USED');
  t.match(lines[1], new RegExp(`^1\talice\t${ISO}\tactive\t${said![1]}\t(${ISO})$`));
  const lastUsed = Date.parse(lines[1]!.split('\t')[5]!);
  t.ok(lastUsed >= used && lastUsed <= Date.now(), 'the last use: the request above, written when the server stopped at the latest');
  t.match(lines[2], new RegExp(`^2\tbob\t${ISO}\tactive\tnever\t-$`), 'never expires, never used');
  t.match(lines[3], new RegExp(`^3\tcarol\t${ISO}\tactive\t${soon.toISOString()}\t-$`));
  t.equal(lines.length, 4);
});

t.test('a token whose expiry has passed is listed as expired', async (t) => {
  const { env } = await freshStore(t);
  // Made through the store, in the past: the CLI refuses a lifetime under a minute, and a test does not wait one out.
  const store = await openStore(databaseSettings(env));
  await createToken(store, 'alice', new Date(Date.now() - 1000));
  await store.close();
  const listed = await runCli(['token', 'list'], env);
  t.match(listed.stdout, new RegExp(`\n1\talice\t${ISO}\texpired\t${ISO}\t-\n$`));
});

// Every refusal of the grammar is in test/cli/token-expiry.test.ts; here, how the command reports a few.
t.test('bad lifetimes are refused before any database is touched: exit 2, the option named', async (t) => {
  const { env } = await freshStore(t);
  const cases: Array<[string[], RegExp]> = [
    [['--expires-in', '30'], /plant-store: --expires-in "30" is not a duration: use a whole number and a unit/],
    [['--expires-in', '10y'], /--expires-in 10y is too long: at most 5y/],
    [['--expires-in'], /--expires-in <value>' argument missing/],
    [['--expires-in', '1d', '--expires-at', '2030-01-01T00:00Z'], /give --expires-in or --expires-at, not both/],
    [['--expires-at', '2030-02-30T00:00Z'], /--expires-at "2030-02-30T00:00Z" is not a date and time with a zone/],
    [['--expires-on', '2030-01-01'], /Unknown option '--expires-on'/],
    [['bob'], /too many arguments: bob/],
    [['--expires-in', '1d', '--expires-in', '30d'], /--expires-in is given 2 times: give it once/],
    [['--expires-at=2030-01-01T00:00Z', '--expires-at=2030-01-02T00:00Z'], /--expires-at is given 2 times/],
  ];
  for (const [options, message] of cases) {
    const result = await runCli(['token', 'create', 'alice', ...options], env);
    t.equal(result.code, 2, `${options.join(' ')}: exit 2`);
    t.match(result.stderr, message, `${options.join(' ')}: ${result.stderr.split('\n')[0]}`);
    t.match(result.stderr, /Usage:/);
    t.notMatch(result.stderr, /using the/, 'no database was opened');
    t.equal(result.stdout, '', 'no token');
  }
  t.match((await runCli(['token', 'list'], env)).stdout, /^ID\tUSER\tCREATED\tSTATE\tEXPIRES\tLAST USED\n$/, 'no token was made');
});

t.test('migrate brings a new database up to date and exits', async (t) => {
  const { env } = await freshStore(t);
  const migrated = await runCli(['migrate'], env);
  t.equal(migrated.code, 0);
  t.match(migrated.stdout, /^applied the \w+ schema migration from version 0 to 1 in /, 'says what it applied');
  const again = await runCli(['migrate'], env);
  t.equal(again.code, 0);
  t.match(again.stdout, /^nothing to apply, at version \d+\n$/, 'running it again changes nothing, and says so');
  t.match((await runCli(['token', 'list'], env)).stdout, /^ID\tUSER\tCREATED\tSTATE\tEXPIRES\tLAST USED\n$/);
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
  for (const args of [
    ['token', 'revoke', 'abc'],
    ['token', 'frobnicate'],
    ['token', 'list', 'extra'],
    ['migrate', 'now'],
    ['frobnicate'],
  ]) {
    const result = await runCli(args, env);
    t.equal(result.code, 2, args.join(' '));
    t.match(result.stderr, /Usage:/);
    t.notMatch(result.stderr, /using the/, `${args.join(' ')}: told before any database is opened`);
  }
  const badUser = await runCli(['token', 'create', 'no spaces'], env);
  t.equal(badUser.code, 2, 'a bad user name is a usage error');
  t.match(badUser.stderr, /"no spaces" is not a valid user name/);
  t.notMatch(badUser.stderr, /using the/, 'told before any database is opened');
  const help = await runCli(['--help'], env);
  t.equal(help.code, 0);
  t.match(help.stdout, /token create <user> \[--count <n>\] \[--expires-in <duration> \| --expires-at <time>\]/);
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

t.test("run from another folder, the default database is that folder's, and the command says so", onlyOn('sqlite'), async (t) => {
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

t.test("the CLI keeps Node's compile cache in the OS temporary folder, never the project, and runs without it", async (t) => {
  const { env } = await freshStore(t);
  const project = tempDir(t); // where the command is run from: nothing may appear there
  const tmp = tempDir(t);
  const made = await runCli(['token', 'create', 'alice'], { ...env, TMPDIR: tmp }, project);
  t.equal(made.code, 0, made.stderr);
  t.ok(statSync(join(tmp, 'node-compile-cache')).isDirectory(), "in os.tmpdir()'s node-compile-cache, Node's default");
  t.same(readdirSync(project), [], 'nothing written where the command runs');

  // A cache folder that cannot be made (a file has its name): the command works and says nothing about it.
  const blocked = tempDir(t);
  writeFileSync(join(blocked, 'node-compile-cache'), 'not a folder');
  const without = await runCli(['token', 'create', 'bob'], { ...env, TMPDIR: blocked }, project);
  t.equal(without.code, 0, without.stderr);
  t.match(without.stdout, /^pst_[A-Za-z0-9_-]{43}\n$/);
  t.notMatch(without.stderr, /cache/i, 'not a word about the cache');
  t.equal(readFileSync(join(blocked, 'node-compile-cache'), 'utf8'), 'not a folder', 'the file in its way is left alone');
});
