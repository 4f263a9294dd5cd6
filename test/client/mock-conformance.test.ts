// The mock is proven by the contract checks: the conformance run passes against `plant-store-mock`, started as a frontend team starts it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { projectRoot } from '../helpers/paths.js';
import { runCli, type Finished } from '../helpers/process.js';

/**
 * The conformance command, in this one place: `plant-store conformance` today. When it moves to
 * clients/conformance, this becomes that package's `plant-store-conformance` bin with the same options.
 */
const conformance = (options: string[]): Promise<Finished> => runCli(['conformance', ...options], {});

/** The mock's bin as the package ships it (built by `npm test`'s pretest). */
const MOCK_BIN = join(projectRoot, 'clients', 'typescript', 'dist', 'mock', 'bin.js');

/*
 * Checks the run leaves out against the mock, each with its reason; none is about data:
 * - `--rate-limit` (GET /plants limits requests per token) is not passed: the mock has no rate limit. It
 *   serves one developer's screens and tests, where a 429 would only get in the way; a screen that handles
 *   429 is tested with an MSW handler of its own placed first (the contract's Error shape and Retry-After).
 * Every other check runs, and none may be skipped.
 */

t.test('the conformance run passes against plant-store-mock, every check, none skipped', async (t) => {
  const mock = spawn(process.execPath, [MOCK_BIN, '--port', '0', '--token', 'pst_mock_alice', '--token', 'pst_mock_bob'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void mock.kill('SIGTERM'));
  let errors = '';
  mock.stderr.on('data', (chunk) => (errors += String(chunk)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    mock.stdout.on('data', (chunk) => {
      out += String(chunk);
      const url = /on (http:\/\/127\.0\.0\.1:\d+) /.exec(out)?.[1];
      if (url !== undefined) resolve(url);
    });
    mock.on('exit', (code) => reject(new Error(`plant-store-mock exited (${code}) before listening: ${errors}`)));
  });

  const run = await conformance(['--base-url', baseUrl, '--token', 'pst_mock_alice', '--other-token', 'pst_mock_bob']);
  const lines = run.stdout.split('\n');
  const results = lines.filter((line) => /^(PASS|FAIL|SKIP)\s/.test(line));
  t.equal(run.code, 0, 'conformance exits 0 against the mock', { output: run.code === 0 ? undefined : run.stdout + run.stderr });
  t.same(
    results.filter((line) => !line.startsWith('PASS')),
    [],
    'no check fails or is skipped',
  );
  t.ok(results.length >= 40, `the whole run took place (${results.length} checks)`);
  t.match(run.stdout, /cleanup: no plant of this run is left/);
  t.match(run.stdout, new RegExp(`${results.length} passed, 0 failed\\n`), 'the summary agrees');
  t.equal(errors, '', 'the mock wrote nothing to stderr');
});
