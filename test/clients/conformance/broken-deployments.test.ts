// @plant-store/conformance against deliberately broken deployments (a proxy in front of a real server that
// plants one fault each): every fault fails the run, the failing line names it, and no plant is left, also
// when the run is interrupted; when the service fails mid-run, the ids it could not delete are printed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { parse } from 'yaml';
import { faultyProxy, type Fault, type ProxiedRequest } from '../../helpers/faulty-proxy.js';
import { listAll } from '../../helpers/load.js';
import { projectRoot } from '../../helpers/paths.js';
import { freePort, runCli, startServer, type Finished } from '../../helpers/process.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { until } from '../../helpers/until.js';
import { conformanceProcess, runArgs, runConformance, type Deployment } from './run-conformance.js';

async function deployment(t: Test): Promise<Deployment> {
  const env = { DATABASE_PATH: `${tempDir(t)}/plants.db`, DATABASE_URL: '' };
  const server = await startServer(t, { ...env, BOOTSTRAP_TOKEN: 'off', LOG_LEVEL: 'warn', AUTH_FAILURES_PER_MINUTE: '1000' });
  const token = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
  const otherToken = (await runCli(['token', 'create', 'bob'], env)).stdout.trim();
  return { url: server.url, token, otherToken };
}

// One server for the file: every run leaves nothing behind (each test says so), so the next starts clean.
const shared = deployment(t);

const args = (url: string, deployment: Deployment) => runArgs(url, deployment);
const json = (request: ProxiedRequest) => request.headers['content-type']?.startsWith('application/json') === true;
const LISTING = 'application/vnd.plant-store.listing+json';
const asksForListing = (request: ProxiedRequest) => request.method === 'GET' && request.headers.accept === LISTING;

/** Deletes every plant of the user, straight at the server: for faults that keep a run from deleting its own. */
async function emptyUser(url: string, token: string): Promise<void> {
  const listed = await fetch(`${url}/plants?limit=1000`, { headers: { authorization: `Bearer ${token}`, accept: LISTING } });
  for (const [, id] of (await listed.text()).matchAll(/"id":(-?\d+)/g))
    await fetch(`${url}/plants/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
}

const faults: Record<string, { fault: (deployment: Deployment) => Fault; names: RegExp; leavesOthersPlant?: true }> = {
  'adds an undeclared property to a created plant': {
    fault: () => ({
      response: (response, request) =>
        request.method === 'POST' && response.status === 200
          ? { ...response, body: response.body.replace(/}$/, ',"colour":"green"}') }
          : response,
    }),
    names:
      /^FAIL {2}POST \/plants {2}creates a plant, and Location names it: .*NOT AS openapi\.yaml SAYS: POST \/plants: POST \/plants 200 body does not match openapi\.yaml: body must NOT have additional properties/m,
  },
  'sends an undeclared x- header (x-powered-by) on a create': {
    fault: () => ({
      response: (response, request) =>
        request.method === 'POST' ? { ...response, headers: { ...response.headers, 'x-powered-by': 'Express' } } : response,
    }),
    names:
      /^FAIL {2}POST \/plants {2}creates a plant, and Location names it: .*NOT AS openapi\.yaml SAYS: POST \/plants: POST \/plants 200 sends the header x-powered-by, which openapi\.yaml does not declare for this answer/m,
  },
  "sends an older draft's RateLimit-Remaining, undeclared, on the list": {
    fault: () => ({
      response: (response, request) =>
        request.method === 'GET' && request.url.startsWith('/plants')
          ? { ...response, headers: { ...response.headers, 'RateLimit-Remaining': '10' } }
          : response,
    }),
    names:
      /^FAIL {2}GET \/plants {2}.*NOT AS openapi\.yaml SAYS: GET \/plants: GET \/plants (200|401) sends the header ratelimit-remaining, which openapi\.yaml does not declare for this answer/m,
  },
  'answers 500 for a long name': {
    fault: () => ({
      answer: (request) => {
        if (request.method !== 'POST' || !json(request) || !/"name":"[^"]{201,}"/.test(request.body)) return undefined;
        return { status: 500, headers: { 'content-type': 'application/json' }, body: '{"error":500,"message":"Something went wrong."}' };
      },
    }),
    names: /^FAIL {2}POST \/plants {2}refuses a name of 201 characters: expected 400; got 500 /m,
  },
  'drops WWW-Authenticate': {
    fault: () => ({
      response: (response) => ({
        ...response,
        headers: Object.fromEntries(Object.entries(response.headers).filter(([name]) => name !== 'www-authenticate')),
      }),
    }),
    names:
      /^FAIL {2}GET \/plants {2}refuses a request without a token: expected 401 with WWW-Authenticate: Bearer realm="plant-store"; got 401 WWW-Authenticate: \(none\) .*lacks the required header WWW-Authenticate/m,
  },
  'rounds a large id (a JSON.parse on the way)': {
    fault: () => ({
      request: (request) => {
        if (request.method !== 'POST' || !json(request)) return request;
        try {
          return { ...request, body: JSON.stringify(JSON.parse(request.body)) };
        } catch {
          return request;
        }
      },
    }),
    names:
      /^FAIL {2}POST \/plants {2}keeps id 9007199254740993 exactly: expected 200 with Location: \/plants\/9007199254740993; got 409 .*the id was rounded/m,
  },
  "lets another user delete a user's plant": {
    // As a service that looked plants up by id alone would: the other user's DELETE reaches the owner's plant.
    fault: ({ token, otherToken }) => ({
      request: (request) =>
        request.method === 'DELETE' && request.headers.authorization === `Bearer ${otherToken}`
          ? { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } }
          : request,
    }),
    names: /^FAIL {2}DELETE \/plants\/\{id\} {2}does not let another user delete this user's plant: .*got the other user's DELETE: 204/m,
    // The other user's own DELETE reaches the owner's plant too, so the plant it made with a shared id stays.
    leavesOthersPlant: true,
  },
  'rounds the ids of the listing (a JSON.parse on the way back)': {
    fault: () => ({
      response: (response, request) =>
        asksForListing(request) && response.status === 200 ? { ...response, body: JSON.stringify(JSON.parse(response.body)) } : response,
    }),
    names:
      /^FAIL {2}GET \/plants {2}lists this run's plants with their exact ids .*; got ids -9223372036854776000, .*9007199254740992, 9007199254740992, 9223372036854776000; not as created: .*9007199254740993 conformance/m,
  },
  'drops Location from a create': {
    fault: () => ({
      response: (response, request) =>
        request.method === 'POST'
          ? { ...response, headers: Object.fromEntries(Object.entries(response.headers).filter(([name]) => name !== 'location')) }
          : response,
    }),
    names:
      /^FAIL {2}POST \/plants {2}creates a plant, and Location names it: .*got 200 Location: \(none\) .*NOT AS openapi\.yaml SAYS: .*POST \/plants 200 lacks the required header Location/m,
  },
  'answers a Location that names another plant': {
    fault: () => ({
      response: (response, request) =>
        request.method === 'POST' && response.status === 200
          ? { ...response, headers: { ...response.headers, location: '/plants/1' } }
          : response,
    }),
    names:
      /^FAIL {2}POST \/plants {2}creates a plant, and Location names it: .*Location is "\/plants\/1", not \/plants\/\d+: it does not name the plant created/m,
  },
  "shows a user's plants to another user in the listing representation": {
    // The listing is a second path through a service: here it reads the plants of the wrong user.
    fault: ({ token, otherToken }) => ({
      request: (request) =>
        asksForListing(request) && request.headers.authorization === `Bearer ${otherToken}`
          ? { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } }
          : request,
    }),
    names:
      /^FAIL {2}GET \/plants {2}does not show this user's plants to another user \(application\/vnd\.plant-store\.listing\+json list\): .*got [1-9]\d* of them/m,
  },
  'answers 409 for the int64 extremes, which nobody has': {
    fault: () => ({
      answer: (request) =>
        request.method === 'POST' && /"id":-?922337203685477580[78],/.test(request.body)
          ? { status: 409, headers: { 'content-type': 'application/json' }, body: '{"error":409,"message":"Taken."}' }
          : undefined,
    }),
    names:
      /^FAIL {2}POST \/plants {2}keeps id 9223372036854775807 exactly: .*got 409 .*though the user's application\/vnd\.plant-store\.listing\+json list has no plant with id 9223372036854775807/m,
  },
  'shares one id space between users': {
    // As a service keyed by id alone would: another user's create of a taken id is 409.
    fault: ({ otherToken }) => {
      const taken = new Set<string>();
      return {
        answer: (request) => {
          const id = request.method === 'POST' ? /"id":(-?\d+)/.exec(request.body)?.[1] : undefined;
          if (id === undefined) return undefined;
          if (request.headers.authorization !== `Bearer ${otherToken}`) taken.add(id);
          else if (taken.has(id))
            return { status: 409, headers: { 'content-type': 'application/json' }, body: '{"error":409,"message":"Taken."}' };
          return undefined;
        },
      };
    },
    names:
      /^FAIL {2}POST \/plants {2}lets another user create a plant with this user's id, changing neither user's plant: .*the other user's, same id: 409/m,
  },
  'serves an empty openapi.yaml': {
    fault: () => ({ response: (response, request) => (request.url === '/openapi.yaml' ? { ...response, body: '' } : response) }),
    names:
      /^FAIL {2}GET \/openapi\.yaml {2}serves the contract as YAML too: expected 200 with a YAML document equal to openapi\.yaml; got 200 .*not a YAML document/m,
  },
  'serves another document as openapi.yaml': {
    fault: () => ({
      response: (response, request) =>
        request.url === '/openapi.yaml' ? { ...response, body: response.body.replace(/^openapi: 3\.1\.0$/m, 'openapi: 3.0.0') } : response,
    }),
    names: /^FAIL {2}GET \/openapi\.yaml {2}serves the contract as YAML too: .*differs at \/openapi$/m,
  },
  'answers the listing media type with the plain array (application/json)': {
    fault: () => ({
      response: (response, request) =>
        asksForListing(request) && response.status === 200
          ? {
              ...response,
              headers: { ...response.headers, 'content-type': 'application/json; charset=utf-8' },
              body: JSON.stringify((JSON.parse(response.body) as { name: string }[]).map(({ name }) => ({ name }))),
            }
          : response,
    }),
    names:
      /^FAIL {2}GET \/plants {2}answers application\/vnd\.plant-store\.listing\+json when Accept asks for it, on every page: expected every page application\/vnd\.plant-store\.listing\+json; got \d+ pages of application\/json$/m,
  },
};

t.test('each broken deployment fails the run, named in its failing line, and no plant is left', async (t) => {
  const server = await shared;
  for (const [name, { fault, names, leavesOthersPlant }] of Object.entries(faults)) {
    await t.test(name, async (t) => {
      const proxy = await faultyProxy(t, server.url, fault(server));
      const run = await runConformance(args(proxy, server));
      t.equal(run.code, 1, 'exit 1');
      t.match(run.stdout, names, 'the failing line names the fault');
      t.match(run.stdout, /^\d+ passed, [1-9]\d* failed, \d+ skipped$/m);
      t.same(await listAll(server.url, server.token), [], 'no plant of the user is left');
      if (leavesOthersPlant) {
        t.match(
          run.stdout,
          /^FAIL {2}DELETE \/plants\/\{id\} {2}deletes every plant of this run: .*\(--other-token\)/m,
          'the one it could not delete is named',
        );
        await emptyUser(server.url, server.otherToken);
      } else {
        t.match(run.stdout, /^cleanup: no plant of this run is left/m);
        t.same(await listAll(server.url, server.otherToken), [], 'none of the other user');
      }
    });
  }
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  t.test(`interrupted (${signal}) in the middle, it still deletes every plant it created`, async (t) => {
    const server = await shared;
    let held: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      held = resolve;
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const proxy = await faultyProxy(t, server.url, {
      // Holds the first page of the pagination walk: by then the run has created its plants.
      request: async (request) => {
        if (request.url === '/plants?limit=2' && request.headers.accept !== LISTING) {
          held();
          await released;
        }
        return request;
      },
    });
    const child = conformanceProcess(args(proxy, server));
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exit = new Promise<Finished>((resolve) => {
      child.on('close', (code, signal) => {
        resolve({ code, signal, stdout, stderr: '' });
      });
    });
    await reached;
    t.not((await listAll(server.url, server.token)).length, 0, 'the run has plants of its own now');
    child.kill(signal);
    // The signal is handled before the held answer comes back: wait for the line that says so.
    await until(() => stdout.includes(`${signal}: stopping`), 10_000, 'the line that says the signal was received');
    release();
    const { code } = await exit;
    t.equal(code, 130, stdout);
    t.match(stdout, new RegExp(`^${signal}: stopping after the request in flight`, 'm'));
    t.match(stdout, /^cleanup: no plant of this run is left/m);
    t.match(
      stdout,
      /^SKIP {2}POST \/plants {2}declared 409 application\/json: not exercised: the run was interrupted$|^PASS {2}POST \/plants {2}declared 409/m,
    );
    t.match(stdout, /\(interrupted\)$/m);
    t.same(await listAll(server.url, server.token), [], 'no plant of the run is left');
  });
}

t.test('a second signal during the cleanup leaves at once, printing the ids of the plants not deleted', async (t) => {
  const server = await shared;
  const gate = () => {
    let arrive: () => void = () => undefined;
    let open: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (arrive = resolve));
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { reached, opened, arrive: () => arrive(), open: () => open() };
  };
  const page = gate();
  const remove = gate();
  let stopping = false;
  const proxy = await faultyProxy(t, server.url, {
    request: async (request) => {
      if (request.url === '/plants?limit=2' && request.headers.accept !== LISTING) {
        page.arrive();
        await page.opened;
      }
      if (stopping && request.method === 'DELETE') {
        remove.arrive();
        await remove.opened;
      }
      return request;
    },
  });
  const child = conformanceProcess(args(proxy, server));
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await page.reached;
  child.kill('SIGINT');
  await until(() => stdout.includes('SIGINT: stopping'), 10_000, 'the first signal is taken');
  stopping = true;
  page.open();
  await remove.reached; // the cleanup's first DELETE is held: nothing of the run is deleted yet
  child.kill('SIGINT');
  t.equal(await exit, 130);
  const printed = /^SIGINT again: leaving now; plants of this run not deleted: (.*)$/m.exec(stdout)?.[1] ?? '';
  const left = await fetch(`${server.url}/plants?limit=1000`, {
    headers: { authorization: `Bearer ${server.token}`, accept: LISTING },
  }).then(async (response) => [...(await response.text()).matchAll(/"id":(-?\d+)/g)].map((match) => match[1]!));
  t.ok(left.length > 0);
  const sorted = (ids: string[]) => ids.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  t.same(sorted(printed.split(', ').map((entry) => entry.replace(' (--token)', ''))), sorted(left), 'exactly the ids still there');
  remove.open();
  for (const id of left)
    await fetch(`${server.url}/plants/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${server.token}` } });
  t.same(await listAll(server.url, server.token), []);
});

t.test('a deployment serving another contract is named by the differing pointers', async (t) => {
  const server = await shared;
  const proxy = await faultyProxy(t, server.url, {
    response: (response, request) =>
      request.url === '/openapi.json' ? { ...response, body: response.body.replace('"version":"1.0.0"', '"version":"1.1.0"') } : response,
  });
  const run = await runConformance(args(proxy, server));
  t.equal(run.code, 1);
  t.match(
    run.stdout,
    /^FAIL {2}GET \/openapi\.json {2}serves the contract this command ships with: expected 200 with a document equal to openapi\.yaml; got 200, differs at \/info\/version$/m,
  );
});

t.test('the service fails mid-run: the run fails and prints exactly the ids it could not delete', async (t) => {
  const server = await shared;
  let down = false;
  const proxy = await faultyProxy(t, server.url, {
    // From the first page of the pagination walk on, every answer is a gateway's 502: the service is gone.
    answer: (request) => {
      if (request.url === '/plants?limit=2') down = true;
      return down ? { status: 502, headers: { 'content-type': 'text/html' }, body: '<h1>502 Bad Gateway</h1>' } : undefined;
    },
  });
  const run = await runConformance(args(proxy, server));
  t.equal(run.code, 1);
  const printed =
    /^FAIL {2}DELETE \/plants\/\{id\} {2}deletes every plant of this run: expected none left; got (.*?)(; and \d+ whose create got no clear answer.*)?$/m.exec(
      run.stdout,
    )?.[1];
  const left = await fetch(`${server.url}/plants?limit=1000`, {
    headers: { authorization: `Bearer ${server.token}`, accept: LISTING },
  }).then(async (response) => [...(await response.text()).matchAll(/"id":(-?\d+)/g)].map((match) => match[1]!));
  t.ok(left.length > 0, 'the run had plants when the service went');
  const sorted = (ids: string[]) => ids.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  t.same(
    sorted(printed?.split(', ').map((entry) => entry.replace(' (--token)', '')) ?? []),
    sorted(left),
    'every id left, and only those, is printed',
  );
  t.match(run.stdout, /^cleanup: FAILED, \d+ plants of this run are or may be left \(listed above\)$/m);
  // Put the shared server back as the next tests expect it: empty.
  for (const id of left)
    await fetch(`${server.url}/plants/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${server.token}` } });
  t.same(await listAll(server.url, server.token), []);
});

t.test('--contract: a contract that declares 406 for an Accept nothing satisfies is held to it', async (t) => {
  const server = await shared;
  const contract = parse(readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8')) as { paths: Record<string, any> };
  contract.paths['/plants'].get.responses['406'] = { $ref: '#/components/responses/BadListQuery' };
  const file = join(tempDir(t), 'with-406.json');
  writeFileSync(file, JSON.stringify(contract));
  const run = await runConformance(runArgs(server.url, server, ['--contract', file]));
  t.equal(run.code, 1);
  t.match(run.stdout, `to ${file} (info.version 1.0.0)`);
  t.match(run.stdout, /^FAIL {2}GET \/plants {2}chooses the representation by Accept, with Vary: Accept: .*got .*text\/html -> 200$/m);
  t.match(run.stdout, /^FAIL {2}GET \/plants {2}declared 406 application\/json: not exercised: no request of this run got it/m);
  t.match(
    run.stdout,
    /^FAIL {2}GET \/openapi\.json {2}serves the contract this command ships with: .*differs at \/paths\/~1plants\/get\/responses\/406 \(missing\)$/m,
  );
  t.match(run.stdout, /^cleanup: no plant of this run is left/m);
});

// Leaves plants behind on the shared server by design: keep it after the tests that expect a clean one.
t.test('plants it cannot delete are named, and fail the run', async (t) => {
  const server = await shared;
  const proxy = await faultyProxy(t, server.url, {
    answer: (request) =>
      request.method === 'DELETE' && request.headers.authorization === `Bearer ${server.token}`
        ? { status: 502, headers: { 'content-type': 'application/json' }, body: '{"error":502,"message":"Down."}' }
        : undefined,
  });
  const run = await runConformance(args(proxy, server));
  t.equal(run.code, 1);
  t.match(run.stdout, /^FAIL {2}DELETE \/plants\/\{id\} {2}deletes every plant of this run: expected none left; got \d+ \(--token\)/m);
  t.match(run.stdout, /^cleanup: FAILED, \d+ plants? of this run (is|are) or may be left \(listed above\)$/m);
  // 502: a status DELETE does not declare (503 it does, for a busy write lock).
  t.match(run.stdout, /DELETE \/plants\/\{id\} 502 is not declared|answered 502, which openapi\.yaml does not declare/);
});

t.test('a deployment that does not answer fails every check, saying so', async (t) => {
  const port = await freePort();
  const run = await runConformance(['--base-url', `http://127.0.0.1:${port}`, '--token', 'a', '--other-token', 'b']);
  t.equal(run.code, 1);
  t.match(run.stdout, /^FAIL {2}GET \/openapi\.json {2}.*got failed: fetch failed \(connect ECONNREFUSED/m);
  // A declared answer a client could have got is a failure when it was never answered, never a silent pass.
  t.match(run.stdout, /^FAIL {2}POST \/plants {2}declared 409 application\/json: not exercised: no request of this run got it/m);
  t.match(run.stdout, /^declared answers: 0 of \d+ exercised$/m);
  t.match(run.stdout, /^0 passed, \d+ failed, \d+ skipped$/m);
});

t.test('a deployment that writes its JSON another way (key order, whitespace) conforms', async (t) => {
  const server = await shared;
  // Keys reversed and indented: JSON fixes neither. Not the plant lists, whose ids a JSON.parse would round.
  const reorder = (value: unknown): unknown =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([key, inner]) => [key, reorder(inner)]),
        )
      : value;
  const proxy = await faultyProxy(t, server.url, {
    response: (response, request) =>
      response.body !== '' &&
      response.headers['content-type']?.startsWith('application/json') &&
      !request.url.startsWith('/plants?') &&
      request.url !== '/plants'
        ? { ...response, body: JSON.stringify(reorder(JSON.parse(response.body)), null, 2) }
        : response,
  });
  const run = await runConformance(args(proxy, server));
  t.equal(
    run.code,
    0,
    run.stdout
      .split('\n')
      .filter((line) => line.startsWith('FAIL'))
      .join('\n'),
  );
  t.match(run.stdout, /^PASS {2}GET \/healthz {2}answers without a token/m);
  t.match(run.stdout, /^PASS {2}POST \/plants {2}creates a plant, and Location names it/m);
});

t.test('a deployment that stops answering: the run gives up after three requests without an answer', async (t) => {
  const server = await shared;
  const proxy = await faultyProxy(t, server.url, { request: () => new Promise(() => undefined) });
  const run = await runConformance(runArgs(proxy, server, ['--timeout', '1']));
  t.equal(run.code, 1);
  t.match(run.stdout, /^FAIL {2}GET \/openapi\.json {2}.*got failed: .*(aborted|timeout)/im);
  t.match(run.stdout, /got failed: not sent: the last 3 requests got no answer \(--timeout 1 s each\); the service is not answering/);
  t.match(run.stdout, /^cleanup: no plant of this run is left \(id block .*; 3 requests so far\)$/m, 'three requests, then nothing');
});
