// `plant-store-conformance` (and the server's `plant-store conformance`, which runs this): checks a live
// deployment against openapi.yaml, one line per check, then every declared answer as exercised or not and
// why; optionally a JUnit report. Deletes every plant it created, also on failure, SIGINT or SIGTERM.
import { accessSync, constants, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { authChecks } from './checks/auth.js';
import { deleteExactIds, idChecks } from './checks/ids.js';
import { LISTING, walk } from './checks/listing.js';
import { listingChecks } from './checks/listing.js';
import { plantChecks } from './checks/plants.js';
import { rateLimitCheck } from './checks/rate-limit.js';
import { serviceChecks } from './checks/service.js';
import { loadContract, shippedContractPath } from './contract-file.js';
import { declaredAnswers, whyNotExercisable } from './declared-answers.js';
import { Http, Interrupted } from './http.js';
import { line, writeJunit } from './report.js';
import { ResponseValidator } from './response-validator.js';
import { Run, type Created } from './run.js';
import { uncheckedOperations } from './unchecked-operations.js';

export const CONFORMANCE_USAGE =
  '--base-url <url> --token <token> --other-token <token of another user> [--junit <file>] [--rate-limit] [--contract <openapi.yaml or .json>] [--timeout <seconds>]';

export interface CommandOptions {
  /** How the usage line names the command: `plant-store-conformance`, or `plant-store conformance` from the server. */
  program?: string;
}

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
      contract: { type: 'string' },
      timeout: { type: 'string', default: '30' },
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
  if (!/^\d{1,4}$/.test(values.timeout) || Number(values.timeout) < 1 || Number(values.timeout) > 3600)
    throw new ConformanceUsageError(`--timeout must be whole seconds from 1 to 3600, not "${values.timeout}"`);
  // A report that cannot be written would fail the run only at its end: its folder is made, or refused, now.
  if (values.junit !== undefined) {
    try {
      mkdirSync(dirname(resolve(values.junit)), { recursive: true });
      accessSync(dirname(resolve(values.junit)), constants.W_OK);
    } catch (error) {
      throw new ConformanceUsageError(`--junit ${values.junit}: its folder cannot be written (${(error as Error).message})`);
    }
  }
  const timeout = Number(values.timeout);
  return { baseUrl, token, otherToken, junit: values.junit, rateLimit: values['rate-limit'], contract: values.contract, timeout };
}

const describe = (left: Created[], run: Run) =>
  left.map(({ token, id }) => `${id} (${token === run.options.token ? '--token' : '--other-token'})`).join(', ');

/**
 * Deletes what the run created, then looks through both users' plants for any of this run's names it did
 * not know it had made (a create answered 5xx, or not at all); a plant that cannot be deleted is named, so a person can.
 */
async function cleanUp(run: Run, print: (text: string) => void): Promise<void> {
  await run.http.settled();
  const first = run.http.problems.length;
  const deleteAll = async () => {
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
  };
  // The sweep: only ids the listing names under this run's names, and only if the listing gives exact ids.
  // Run after each round of deletes: a 204 or 404 is the service's word, the listing is what is left.
  let stray: string[] = [];
  const sweep = async () => {
    stray = [];
    for (const token of [run.options.token, run.options.otherToken]) {
      let found;
      try {
        found = (await walk(run, token, 1000, LISTING, true)).pages.flatMap((page) => page.items).filter((item) => run.isMine(item.name));
      } catch {
        continue; // no answer: the ids it knows of are reported below
      }
      for (const item of found) {
        if (typeof item.id === 'bigint' && run.ownsId(item.id)) run.created.set(`${token} ${item.id}`, { token, id: item.id, sure: true });
        else if (!run.created.has(`${token} ${String(item.id)}`)) stray.push(`${String(item.name)} (id ${String(item.id)})`);
      }
    }
  };
  await deleteAll();
  await sweep();
  await deleteAll();
  await sweep();
  const left = [...run.created.values()].filter((plant) => plant.sure);
  const unknown = [...run.created.values()].filter((plant) => !plant.sure);
  // The cleanup's answers are held to the contract too.
  const problems = run.http.problems.slice(first);
  const fail = (title: string, expected: string, actual: string) => {
    const result = { status: 'fail', operation: 'DELETE /plants/{id}', title, expected, actual, seconds: 0 } as const;
    run.results.push(result);
    print(line(result));
  };
  if (problems.length > 0)
    fail('answers the cleanup as openapi.yaml says', 'answers that follow openapi.yaml', problems.slice(0, 5).join('; '));
  const doubts =
    unknown.length === 0 ? '' : `; and ${unknown.length} whose create got no clear answer, which may not exist: ${describe(unknown, run)}`;
  if (left.length > 0 || stray.length > 0 || unknown.length > 0)
    fail(
      'deletes every plant of this run',
      'none left',
      `${[describe(left, run), ...stray].filter((part) => part !== '').join(', ') || 'none known'}${doubts}`,
    );
  const count = left.length + stray.length + unknown.length;
  print(
    count === 0
      ? `cleanup: no plant of this run is left (id block ${run.block} to ${run.id(999)}; ${run.http.sent} requests so far)`
      : `cleanup: FAILED, ${count} ${count === 1 ? 'plant of this run is' : 'plants of this run are'} or may be left (listed above)`,
  );
}

/** One result per declared answer: exercised (pass), not exercisable here and why (skip), or never got (fail). */
function declaredAnswerResults(
  run: Run,
  contract: Record<string, unknown>,
  rateLimit: boolean,
  interrupted: boolean,
  print: (text: string) => void,
) {
  const answers = declaredAnswers(contract);
  const exercised = answers.filter((answer) => run.http.exercised.has(answer.key)).length;
  print(`declared answers: ${exercised} of ${answers.length} exercised`);
  for (const answer of answers) {
    const title = `declared ${answer.status}${answer.mediaType === undefined ? '' : ` ${answer.mediaType}`}`;
    const why = whyNotExercisable(answer, { rateLimit });
    const got = run.http.exercised.has(answer.key);
    const result = {
      status: got ? 'pass' : why !== undefined || interrupted ? 'skip' : 'fail',
      operation: answer.operation,
      title,
      expected: 'exercised by this run',
      actual: got
        ? 'exercised'
        : `not exercised: ${why ?? (interrupted ? 'the run was interrupted' : 'no request of this run got it (see the failures above), or the run has no check for it')}`,
      seconds: 0,
    } as const;
    run.results.push(result);
    print(`${result.status.toUpperCase().padEnd(4)}  ${result.operation}  ${title}: ${result.actual}`);
  }
}

/** Runs the command; answers the exit code: 0 conforms, 1 does not, 2 usage, 130 interrupted. */
export async function conformanceCommand(args: string[], { program = 'plant-store-conformance' }: CommandOptions = {}): Promise<number> {
  let settings: ReturnType<typeof options>;
  try {
    settings = options(args);
  } catch (error) {
    process.stderr.write(`${program}: ${(error as Error).message}\nUsage: ${program} ${CONFORMANCE_USAGE}\n`);
    return 2;
  }
  if (settings === undefined) {
    process.stdout.write(
      `Usage: ${program} ${CONFORMANCE_USAGE}\nChecks a running deployment against openapi.yaml (by default the copy this package ships); ` +
        'what it checks and changes: the README of @plant-store/conformance.\nExit codes: 0 conforms, 1 does not, 2 usage, 130 interrupted.\n',
    );
    return 0;
  }
  const print = (text: string) => process.stdout.write(`${text}\n`);
  let contractFile: string;
  let contract: Record<string, unknown>;
  try {
    contractFile = settings.contract ?? shippedContractPath();
    contract = loadContract(contractFile);
  } catch (error) {
    process.stderr.write(`${program}: ${(error as Error).message}\n`);
    return 2;
  }
  const http = new Http(settings.baseUrl, new ResponseValidator(contract), settings.timeout);
  const run = new Run(http, { token: settings.token, otherToken: settings.otherToken, print, format: line });
  print(
    `conformance of ${settings.baseUrl} to ${contractFile} (info.version ${String((contract.info as { version?: unknown }).version)}), run ${run.runId}`,
  );

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    // The first signal stops the checks and lets the cleanup run; a second one leaves at once, naming what is left.
    if (++signals > 1) {
      const left = [...run.created.values()];
      print(`${signal} again: leaving now${left.length > 0 ? `; plants of this run not deleted: ${describe(left, run)}` : ''}`);
      process.exit(130);
    }
    print(`${signal}: stopping after the request in flight, then deleting this run's plants (again to leave now)`);
    http.interrupted = true;
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);

  let interrupted = false;
  try {
    await serviceChecks(run, contract);
    await authChecks(run);
    await plantChecks(run);
    const exact = await idChecks(run);
    await listingChecks(run, contract);
    await deleteExactIds(run, exact);
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
  for (const result of uncheckedOperations(contract, run.results, interrupted)) {
    run.results.push(result);
    print(line(result));
  }
  declaredAnswerResults(run, contract, settings.rateLimit, interrupted, print);

  if (settings.junit !== undefined) writeJunit(settings.junit, run.results, `plant-store conformance of ${settings.baseUrl}`);
  const failed = run.results.filter((result) => result.status === 'fail').length;
  const skipped = run.results.filter((result) => result.status === 'skip').length;
  print(
    `${run.results.length - failed - skipped} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}${interrupted ? ' (interrupted)' : ''}`,
  );
  return interrupted ? 130 : failed > 0 ? 1 : 0;
}
