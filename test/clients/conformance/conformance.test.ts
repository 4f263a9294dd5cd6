// @plant-store/conformance against a live server of the store under test: it passes, reports every
// declared answer (exercised, or why not), writes its JUnit report, and leaves no plant behind; the
// server's `plant-store conformance` runs the same package.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadContract } from '../../../clients/conformance/src/contract-file.js';
import { declaredAnswers, whyNotExercisable } from '../../../clients/conformance/src/declared-answers.js';
import { listAll } from '../../helpers/load.js';
import { projectRoot } from '../../helpers/paths.js';
import { runCli, startServer } from '../../helpers/process.js';
import { freshStore } from '../../helpers/store-under-test.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { runArgs, runConformance } from './run-conformance.js';

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

// What a run without --rate-limit must exercise, and may not: counted from the contract, not written down twice.
const answers = declaredAnswers(loadContract(join(projectRoot, 'openapi.yaml')));
const excused = answers.filter((answer) => whyNotExercisable(answer, { rateLimit: false }) !== undefined).length;
const excusedWithRateLimit = answers.filter((answer) => whyNotExercisable(answer, { rateLimit: true }) !== undefined).length;

const checkLines = (stdout: string) => stdout.split('\n').filter((line) => /^(PASS|FAIL|SKIP) /.test(line));

t.test('a correct deployment conforms: every check passes, every declared answer is accounted for, nothing is left', async (t) => {
  const server = await shared;
  // In a folder that is not there yet, as a CI job would write reports/conformance.xml: it is made.
  const junit = join(tempDir(t), 'reports', 'conformance.xml');
  const run = await runConformance(runArgs(server.url, server, ['--junit', junit]));
  t.equal(run.code, 0, run.stdout + run.stderr);
  const lines = run.stdout.trim().split('\n');
  const checks = checkLines(run.stdout);
  t.same(
    checks.filter((line) => line.startsWith('FAIL')),
    [],
  );
  for (const needed of [
    'GET /openapi.json  serves the contract this command ships with',
    'GET /healthz  answers HEAD as GET, without the body',
    'GET /openapi.yaml  answers HEAD as GET',
    'refuses a token it never issued',
    'POST /plants  creates a plant, and Location names it',
    'refuses a body over 16 KiB',
    'refuses a body that is not JSON',
    'answers a retried create again',
    'refuses the same id with other content',
    'keeps id 9223372036854775807 exactly',
    'keeps id -9223372036854775808 exactly',
    'keeps id 9007199254740993 exactly',
    'walks Link pages',
    'answers application/vnd.plant-store.listing+json when Accept asks for it, on every page',
    "lists this run's plants with their exact ids",
    'gives both representations the same pages and the same Link',
    'chooses the representation by Accept, with Vary: Accept',
    "does not let another user delete this user's plant",
    'answers 404 for an id',
    'deletes id 9007199254740993 by its exact digits',
  ]) {
    t.ok(
      checks.some((line) => line.startsWith('PASS') && line.includes(needed)),
      `passes: ${needed}`,
    );
  }
  // The exact ids, as the listing gave them back.
  t.match(
    run.stdout,
    /^PASS {2}GET \/plants {2}lists this run's plants .*got ids -9223372036854775808, .*9007199254740992, 9007199254740993, 9223372036854775807$/m,
  );
  // Every declared answer is a line of its own: what a client can provoke was exercised; the rest says why not.
  t.match(run.stdout, `\ndeclared answers: ${answers.length - excused} of ${answers.length} exercised\n`);
  for (const exercised of [
    'GET /plants  declared 200 application/vnd.plant-store.listing+json',
    'GET /plants  declared 200 application/json',
    'POST /plants  declared 409 application/json',
    'DELETE /plants/{id}  declared 204',
    'GET /openapi.yaml  declared 200 application/yaml',
  ])
    t.match(run.stdout, `PASS  ${exercised}: exercised`);
  t.match(run.stdout, /^SKIP {2}POST \/plants {2}declared 429 application\/json: not exercised: needs --rate-limit/m);
  t.match(run.stdout, /^SKIP {2}DELETE \/plants\/\{id\} {2}declared 500 application\/json: not exercised: a failure inside the service/m);
  t.match(run.stdout, /^SKIP {2}GET \/readyz {2}declared 503 application\/json: not exercised: needs the database to be unreachable/m);
  t.equal(checks.filter((line) => line.startsWith('SKIP')).length, excused, 'only the declared answers no client can provoke are skipped');
  t.match(run.stdout, /^cleanup: no plant of this run is left/m);
  t.equal(lines.at(-1), `${checks.length - excused} passed, 0 failed, ${excused} skipped`);
  const report = readFileSync(junit, 'utf8');
  t.match(report, `<testsuites name="plant-store conformance" tests="${checks.length}" failures="0" errors="0" skipped="${excused}"`);
  t.equal(report.match(/<testcase /g)?.length, checks.length, 'one testcase per line');
  t.match(
    report,
    /<testcase classname="GET \/plants" name="declared 429 application\/json" time="0.000">\s*<skipped message="not exercised: needs --rate-limit/,
  );
  t.same(await listAll(server.url, server.token), [], "the user's plants are all gone");
  t.same(await listAll(server.url, server.otherToken), [], "the other user's too");
});

t.test('--rate-limit adds the 429 of each plant operation, after the plants are gone', async (t) => {
  const { url, spentToken, otherToken } = await shared;
  const run = await runConformance(runArgs(url, { token: spentToken, otherToken }, ['--rate-limit']));
  t.equal(run.code, 0, run.stdout + run.stderr);
  t.match(
    run.stdout,
    /^PASS {2}GET \/plants {2}limits requests per token: .*; got after \d+ requests: 429 Retry-After: \d+ .*; then POST 429 Retry-After: \d+ .*; DELETE 429 Retry-After: \d+/m,
  );
  t.ok(run.stdout.indexOf('cleanup:') < run.stdout.indexOf('limits requests per token'));
  t.match(run.stdout, `\ndeclared answers: ${answers.length - excusedWithRateLimit} of ${answers.length} exercised\n`);
  for (const operation of ['GET /plants', 'POST /plants', 'DELETE /plants/{id}'])
    t.match(run.stdout, `PASS  ${operation}  declared 429 application/json: exercised`);
});

t.test('a contract that declares an operation the run has no check for fails the run, naming the operation', async (t) => {
  const { url, token, otherToken } = await shared;
  const grown = loadContract(join(projectRoot, 'openapi.yaml')) as { paths: Record<string, Record<string, unknown>> };
  grown.paths['/plants/{id}']!.get = { operationId: 'getPlant', responses: { '200': { description: 'A plant.' } } };
  const file = join(tempDir(t), 'grown.json');
  writeFileSync(file, JSON.stringify(grown));
  const run = await runConformance(runArgs(url, { token, otherToken }, ['--contract', file]));
  t.equal(run.code, 1, run.stdout + run.stderr);
  t.match(
    run.stdout,
    /^FAIL {2}GET \/plants\/\{id\} {2}has checks in this runner \(getPlant\): expected checks of getPlant in @plant-store\/conformance .*; got none: openapi\.yaml declares getPlant, and this runner has no check for it$/m,
  );
  t.same(
    checkLines(run.stdout).filter((line) => / has checks in this runner /.test(line)).length,
    1,
    'only the new operation lacks checks',
  );
});

t.test(
  "the server's plant-store conformance runs the package, with the openapi.yaml the package ships",
  {
    skip: existsSync(join(projectRoot, 'clients/conformance/dist/index.js'))
      ? false
      : 'clients/conformance is not built: npm test builds it first (npm run build)',
  },
  async (t) => {
    const { url, token, otherToken } = await shared;
    const run = await runCli(['conformance', ...runArgs(url, { token, otherToken })], {}, tempDir(t));
    t.equal(run.code, 0, run.stdout + run.stderr);
    t.match(run.stdout, `to ${join(projectRoot, 'clients', 'conformance', 'dist', 'openapi.yaml')} (info.version`);
    t.match(run.stdout, `\ndeclared answers: ${answers.length - excused} of ${answers.length} exercised\n`);
    const help = await runCli(['conformance', '--help'], {});
    t.match(help.stdout, /^Usage: plant-store conformance --base-url <url>/);
  },
);

t.test("without the package, the server's plant-store conformance says what to install", async (t) => {
  // A resolve hook that finds no @plant-store/conformance, as in an install that lacks it.
  const hook = `export async function resolve(specifier, context, next) {
    if (specifier !== '@plant-store/conformance') return next(specifier, context);
    throw Object.assign(new Error("Cannot find package '@plant-store/conformance'"), { code: 'ERR_MODULE_NOT_FOUND' });
  }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        import.meta.resolve('tsx'),
        '--import',
        `data:text/javascript,${encodeURIComponent(register)}`,
        join(projectRoot, 'src', 'cli.ts'),
        'conformance',
        '--help',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('close', (code) => resolve({ code, stderr }));
  });
  t.equal(run.code, 1, run.stderr);
  t.match(
    run.stderr,
    /^plant-store: the conformance run is the package @plant-store\/conformance, and it is not installed \(or not built\) here: run npm ci/,
  );
});

t.test('usage errors exit 2 and say what is missing', async (t) => {
  const missing = await runConformance(['--base-url', 'http://127.0.0.1:1']);
  t.equal(missing.code, 2);
  t.match(missing.stderr, 'plant-store-conformance: --base-url, --token and --other-token are needed');
  const same = await runConformance(['--base-url', 'http://127.0.0.1:1', '--token', 'a', '--other-token', 'a']);
  t.equal(same.code, 2);
  t.match(same.stderr, 'another user');
  const unknown = await runConformance(['--base-url', 'http://127.0.0.1:1', '--tokn', 'a']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, "Unknown option '--tokn'");
  const contract = await runConformance([
    '--base-url',
    'http://127.0.0.1:1',
    '--token',
    'a',
    '--other-token',
    'b',
    '--contract',
    '/nonexistent.yaml',
  ]);
  t.equal(contract.code, 2);
  t.match(contract.stderr, 'ENOENT');
  const base = ['--base-url', 'http://127.0.0.1:1', '--token', 'a', '--other-token', 'b'];
  for (const timeout of ['0', '1.5', 'ten', '3601']) {
    const refused = await runConformance([...base, '--timeout', timeout]);
    t.equal(refused.code, 2, `--timeout ${timeout}`);
    t.match(refused.stderr, `--timeout must be whole seconds from 1 to 3600, not "${timeout}"`);
  }
  // Before any request: a report that cannot be written would otherwise fail the run only at its end.
  const file = join(tempDir(t), 'a-file');
  writeFileSync(file, '');
  const junit = await runConformance([...base, '--junit', join(file, 'conformance.xml')]);
  t.equal(junit.code, 2, '--junit under a file');
  t.match(junit.stderr, /--junit .*: its folder cannot be written/);
  t.equal(junit.stdout, '', 'no request was sent');
  const help = await runConformance(['--help']);
  t.equal(help.code, 0);
  t.match(
    help.stdout,
    /^Usage: plant-store-conformance --base-url <url> --token <token> --other-token <token of another user> \[--junit <file>\] \[--rate-limit\] \[--contract/,
  );
});
