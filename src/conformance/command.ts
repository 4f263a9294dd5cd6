// `plant-store conformance`: checks a live deployment against the openapi.yaml this package ships,
// one line per check, optionally a JUnit report; deletes every plant it created, also on failure or Ctrl-C.
import { parseArgs } from 'node:util';
import { authChecks } from './checks/auth.js';
import { idChecks } from './checks/ids.js';
import { listingChecks } from './checks/listing.js';
import { plantChecks } from './checks/plants.js';
import { rateLimitCheck } from './checks/rate-limit.js';
import { serviceChecks } from './checks/service.js';
import { contractPath, loadContract } from './contract-file.js';
import { Http, Interrupted } from './http.js';
import { line, writeJunit } from './report.js';
import { ResponseValidator } from './response-validator.js';
import { Run } from './run.js';

export const CONFORMANCE_USAGE = `plant-store conformance --base-url <url> --token <token> --other-token <token of another user> [--junit <file>] [--rate-limit]`;

class ConformanceUsageError extends Error {}

function options(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'base-url': { type: 'string' },
      token: { type: 'string' },
      'other-token': { type: 'string' },
      junit: { type: 'string' },
      'rate-limit': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return undefined;
  const baseUrl = values['base-url']?.replace(/\/+$/, '');
  const { token } = values;
  const otherToken = values['other-token'];
  if (positionals.length > 0) throw new ConformanceUsageError(`unexpected argument: ${positionals.join(' ')}`);
  if (baseUrl === undefined || token === undefined || otherToken === undefined)
    throw new ConformanceUsageError('--base-url, --token and --other-token are needed');
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) throw new ConformanceUsageError(`--base-url must be an http(s) URL, not "${baseUrl}"`);
  if (token === otherToken) throw new ConformanceUsageError('--other-token must belong to another user than --token');
  return { baseUrl, token, otherToken, junit: values.junit, rateLimit: values['rate-limit'] };
}

/** Deletes what the run created; a plant that cannot be deleted is named, so a person can. */
async function cleanUp(run: Run, print: (text: string) => void): Promise<void> {
  await run.http.settled();
  const first = run.http.problems.length;
  for (const { token, id } of [...run.created.values()]) {
    for (let attempt = 0; attempt < 3 && run.created.has(`${token} ${id}`); attempt++) {
      try {
        const answer = await run.remove(id, token, true);
        // Rate limited: wait as told (at most a minute), then try again.
        if (answer.status === 429)
          await new Promise((resolve) => setTimeout(resolve, Math.min(Number(answer.headers['retry-after'] ?? 1), 60) * 1000));
      } catch {
        // No answer: try again; what is still left is reported below.
      }
    }
  }
  const left = [...run.created.values()];
  // The cleanup's answers are held to the contract too.
  const problems = run.http.problems.slice(first);
  const fail = (title: string, expected: string, actual: string) => {
    const result = { status: 'fail', operation: 'DELETE /plants/{id}', title, expected, actual, seconds: 0 } as const;
    run.results.push(result);
    print(line(result));
  };
  if (problems.length > 0)
    fail('answers the cleanup as openapi.yaml says', 'answers that follow openapi.yaml', problems.slice(0, 5).join('; '));
  if (left.length > 0)
    fail(
      'deletes every plant of this run',
      'none left',
      left.map(({ token, id }) => `${id} (${token === run.options.token ? '--token' : '--other-token'})`).join(', '),
    );
  print(
    left.length === 0
      ? `cleanup: no plant of this run is left (id block ${run.block} to ${run.id(999)})`
      : `cleanup: FAILED, ${left.length} ${left.length === 1 ? 'plant of this run is' : 'plants of this run are'} left (listed above)`,
  );
}

/** Runs the command; answers the exit code: 0 conforms, 1 does not, 2 usage, 130 interrupted. */
export async function conformanceCommand(args: string[]): Promise<number> {
  let settings: ReturnType<typeof options>;
  try {
    settings = options(args);
  } catch (error) {
    process.stderr.write(`plant-store conformance: ${(error as Error).message}\nUsage: ${CONFORMANCE_USAGE}\n`);
    return 2;
  }
  if (settings === undefined) {
    process.stdout.write(`Usage: ${CONFORMANCE_USAGE}\nWhat it checks and changes: docs/contract-checks.md\n`);
    return 0;
  }
  const print = (text: string) => process.stdout.write(`${text}\n`);
  const contract = loadContract();
  const http = new Http(settings.baseUrl, new ResponseValidator(contract));
  const run = new Run(http, { token: settings.token, otherToken: settings.otherToken, print, format: line });
  print(
    `conformance of ${settings.baseUrl} to ${contractPath()} (info.version ${String((contract.info as { version?: unknown }).version)}), run ${run.runId}`,
  );

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    // The first signal stops the checks and lets the cleanup run; a second one leaves at once.
    if (++signals > 1) process.exit(130);
    print(`${signal}: stopping after the request in flight, then deleting this run's plants (again to leave now)`);
    http.interrupted = true;
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);

  let interrupted = false;
  try {
    await serviceChecks(run, contract);
    await authChecks(run);
    await plantChecks(run);
    await idChecks(run);
    await listingChecks(run);
  } catch (error) {
    if (!(error instanceof Interrupted)) throw error;
    interrupted = true;
  } finally {
    await cleanUp(run, print);
  }
  if (settings.rateLimit && !interrupted) {
    try {
      await rateLimitCheck(run);
    } catch (error) {
      if (!(error instanceof Interrupted)) throw error;
      interrupted = true;
    }
  }
  process.off('SIGINT', onSignal).off('SIGTERM', onSignal);

  if (settings.junit !== undefined) writeJunit(settings.junit, run.results, `plant-store conformance of ${settings.baseUrl}`);
  const failed = run.results.filter((result) => result.status === 'fail').length;
  const skipped = run.results.filter((result) => result.status === 'skip').length;
  print(
    `${run.results.length - failed - skipped} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}${interrupted ? ' (interrupted)' : ''}`,
  );
  return interrupted ? 130 : failed > 0 ? 1 : 0;
}
