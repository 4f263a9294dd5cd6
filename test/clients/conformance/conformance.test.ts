// `plant-store conformance` as a process against a live server of the store under test: it passes,
// writes its JUnit report, and leaves no plant behind.
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { listAll } from '../helpers/load.js';
import { projectRoot } from '../helpers/paths.js';
import { runCli, startServer } from '../helpers/process.js';
import { freshStore } from '../helpers/store-under-test.js';
import { tempDir } from '../helpers/temp-dir.js';

/** One server for the file (each run leaves nothing behind); carol's token is for the run that uses up its rate limit. */
async function deployment(t: Test) {
  const { env } = await freshStore(t);
  // Every run makes six failed authentications on purpose; the default limit of 30 a minute would stop the fifth run.
  const server = await startServer(t, { ...env, BOOTSTRAP_TOKEN: 'off', LOG_LEVEL: 'warn', AUTH_FAILURES_PER_MINUTE: '1000' });
  const [token, otherToken, spentToken] = await Promise.all(
    ['alice', 'bob', 'carol'].map(async (user) => (await runCli(['token', 'create', user], env)).stdout.trim()),
  );
  return { url: server.url, token: token!, otherToken: otherToken!, spentToken: spentToken! };
}
const shared = deployment(t);

t.test('a correct deployment conforms: every check passes, the report is written, nothing is left', async (t) => {
  const { url, token, otherToken } = await shared;
  const junit = join(tempDir(t), 'conformance.xml');
  const run = await runCli(['conformance', '--base-url', url, '--token', token, '--other-token', otherToken, '--junit', junit], {});
  t.equal(run.code, 0, run.stdout + run.stderr);
  const lines = run.stdout.trim().split('\n');
  const checks = lines.filter((line) => /^(PASS|FAIL|SKIP) /.test(line));
  t.ok(checks.length >= 40, `${checks.length} checks`);
  t.same(
    checks.filter((line) => !line.startsWith('PASS')),
    [],
  );
  for (const needed of [
    'GET /openapi.json',
    'refuses a token it never issued',
    'refuses a body over 16 KiB',
    'refuses a body that is not JSON',
    'answers a retried create again',
    'refuses the same id with other content',
    'keeps id 9223372036854775807 exactly',
    'keeps id -9223372036854775808 exactly',
    'keeps id 9007199254740993 exactly',
    'walks Link pages',
    "does not let another user delete this user's plant",
    'answers 404 for an id',
  ]) {
    t.ok(
      checks.some((line) => line.includes(needed)),
      `checks: ${needed}`,
    );
  }
  t.match(lines.at(-2), /^cleanup: no plant of this run is left/);
  t.equal(lines.at(-1), `${checks.length} passed, 0 failed`);
  const report = readFileSync(junit, 'utf8');
  t.match(report, `<testsuites name="plant-store conformance" tests="${checks.length}" failures="0" errors="0" skipped="0"`);
  t.equal(report.match(/<testcase /g)?.length, checks.length, 'one testcase per check');
  t.same(await listAll(url, token), [], "the user's plants are all gone");
  t.same(await listAll(url, otherToken), [], "the other user's too");
});

t.test('--rate-limit adds a 429 check, after the plants are gone', async (t) => {
  const { url, spentToken, otherToken } = await shared;
  const run = await runCli(['conformance', '--base-url', url, '--token', spentToken, '--other-token', otherToken, '--rate-limit'], {});
  t.equal(run.code, 0, run.stdout + run.stderr);
  t.match(
    run.stdout,
    /^PASS {2}GET \/plants {2}limits requests per token: expected 429 with Retry-After.*; got after \d+ requests: 429 Retry-After: \d+/m,
  );
  t.ok(run.stdout.indexOf('cleanup:') < run.stdout.indexOf('limits requests per token'));
});

t.test(
  'the built command finds the openapi.yaml of its package from any directory',
  { skip: existsSync(join(projectRoot, 'dist/src/conformance/command.js')) ? false : 'no dist/: npm test builds it first (npm run build)' },
  async (t) => {
    const { url, token, otherToken } = await shared;
    const run = spawnSync(
      process.execPath,
      [join(projectRoot, 'dist/src/cli.js'), 'conformance', '--base-url', url, '--token', token, '--other-token', otherToken],
      { cwd: tempDir(t), encoding: 'utf8' },
    );
    t.equal(run.status, 0, run.stdout + run.stderr);
    t.match(run.stdout, `to ${join(projectRoot, 'openapi.yaml')} (info.version`);
  },
);

t.test('usage errors exit 2 and say what is missing', async (t) => {
  const missing = await runCli(['conformance', '--base-url', 'http://127.0.0.1:1'], {});
  t.equal(missing.code, 2);
  t.match(missing.stderr, '--base-url, --token and --other-token are needed');
  const same = await runCli(['conformance', '--base-url', 'http://127.0.0.1:1', '--token', 'a', '--other-token', 'a'], {});
  t.equal(same.code, 2);
  t.match(same.stderr, 'another user');
  const help = await runCli(['conformance', '--help'], {});
  t.equal(help.code, 0);
  t.match(help.stdout, /^Usage: plant-store conformance --base-url <url>/);
});
