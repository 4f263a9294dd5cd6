// Deprecation from the contract, end to end on a copy of openapi.yaml that deprecates GET /plants's `limit` and
// GET /healthz: the headers on real answers (the page's rel="next" kept), the counter, the served contract,
// the conformance check, and the generator's demand that the headers be declared.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import { deprecations, undeclaredDeprecationHeaders } from '../../clients/conformance/src/deprecation.js';
import { ResponseValidator } from '../../clients/conformance/src/response-validator.js';
import { buildApp } from '../../src/app.js';
import { testConfig, tokenFor } from '../helpers/app.js';
import { listen } from '../helpers/checked-fetch.js';
import { deprecatedContract, deprecatedDocument, HEALTH, LIMIT } from '../helpers/deprecated-contract.js';
import { projectRoot } from '../helpers/paths.js';
import { parsePrometheusText, valueOf } from '../helpers/prometheus-text.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runArgs, runConformance } from '../clients/conformance/run-conformance.js';

const COUNTER = 'plant_store_deprecated_requests_total';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function serve(
  t: Test,
  contract?: string,
): Promise<{ app: FastifyInstance; base: string; metrics: () => Promise<string>; token: string }> {
  const app = await buildApp(await testConfig(t, { metricsPort: 0, metricsHost: '127.0.0.1' }), contract === undefined ? {} : { contract });
  t.teardown(() => app.close());
  const base = await listen(app);
  // The registry itself: /metrics serves one render a second (metrics-server.ts), and its port is tested elsewhere.
  const metrics = () => app.metrics!.registry.metrics();
  return { app, base, metrics, token: await tokenFor(app, 'alice') };
}

async function send(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(base + path, init);
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: await response.text() };
}

const counted = async (metrics: () => Promise<string>, operation: string) =>
  valueOf(parsePrometheusText(await metrics()), COUNTER, { operation });

t.test('a deprecated query parameter: every answer to a request that sends it, and only those, announce it', async (t) => {
  const { base, metrics, token } = await serve(t, deprecatedContract());
  const auth = { authorization: `Bearer ${token}` };
  t.equal(await counted(metrics, 'listPlants'), 0, 'the series is there from the start');
  for (const id of [1, 2, 3]) {
    const created = await send(base, '/plants', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: `{"id":${id},"name":"Fern ${id}"}`,
    });
    t.equal(created.status, 200);
    t.equal(created.headers.deprecation, undefined, 'an operation nothing deprecates announces nothing');
  }

  const page = await send(base, '/plants?limit=2', { headers: auth });
  t.equal(page.status, 200);
  t.equal(page.headers.deprecation, LIMIT.deprecation, 'RFC 9745: @ and the Unix seconds of x-deprecated-at');
  t.equal(page.headers.sunset, LIMIT.sunsetHeader, 'RFC 8594: the HTTP-date of x-sunset');
  t.match(
    page.headers.link,
    /^<\/plants\?limit=2&cursor=[A-Za-z0-9_-]+>; rel="next", <\/docs>; rel="deprecation"$/,
    'appended to the page link',
  );

  const unused = await send(base, '/plants', { headers: auth });
  t.equal(unused.status, 200);
  t.equal(unused.headers.deprecation, undefined, 'left out (its default applies): nothing to announce');
  t.equal(unused.headers.sunset, undefined);

  const invalid = await send(base, '/plants?limit=0', { headers: auth });
  t.equal(invalid.status, 400);
  t.equal(invalid.headers.deprecation, LIMIT.deprecation, 'an error answer announces it too');
  t.equal(invalid.headers.link, '</docs>; rel="deprecation"');
  const anonymous = await send(base, '/plants?limit=5');
  t.equal(anonymous.status, 401);
  t.equal(anonymous.headers.sunset, LIMIT.sunsetHeader, 'also when authentication refuses the request');

  t.equal(await counted(metrics, 'listPlants'), 3, 'the three answers that announced it');
  t.equal(await counted(metrics, 'addPlant'), undefined, 'operations nothing deprecates have no series');

  // The conformance run's check, on the same answers: they announce what the copy deprecates.
  const validator = new ResponseValidator(deprecatedDocument());
  for (const [path, answer] of [
    ['/plants?limit=2', page],
    ['/plants', unused],
    ['/plants?limit=0', invalid],
    ['/plants?limit=5', anonymous],
  ] as const)
    t.same(validator.check('GET', path, answer), [], `GET ${path} -> ${answer.status} announces what the contract deprecates`);
});

t.test('a deprecated operation: every answer announces it, with the link the contract names; /openapi.json keeps deprecated', async (t) => {
  const { base, metrics } = await serve(t, deprecatedContract());
  t.equal(await counted(metrics, 'getHealth'), 0);
  for (const method of ['GET', 'HEAD']) {
    const health = await send(base, '/healthz', { method });
    t.equal(health.status, 200);
    t.equal(health.headers.deprecation, HEALTH.deprecation, method);
    t.equal(health.headers.sunset, HEALTH.sunsetHeader, method);
    t.equal(health.headers.link, `<${HEALTH.link}>; rel="deprecation"`, method);
  }
  t.equal(await counted(metrics, 'getHealth'), 2);
  const ready = await send(base, '/readyz');
  t.equal(ready.headers.deprecation, undefined, 'its neighbour is not deprecated');

  // Swagger UI reads /openapi.json: it shows the operation and the parameter struck through.
  const served = JSON.parse((await send(base, '/openapi.json')).body);
  t.equal(served.paths['/healthz'].get.deprecated, true);
  t.equal(served.paths['/healthz'].get['x-sunset'], HEALTH.sunset);
  t.equal(served.paths['/plants'].get.parameters.find((parameter: { name: string }) => parameter.name === 'limit').deprecated, true);
  t.match((await send(base, '/openapi.yaml')).body, `x-sunset: ${LIMIT.sunset}`);
});

t.test('the conformance check fails a deployment whose answers do not announce what its contract deprecates', async (t) => {
  const { base, token } = await serve(t); // the project's contract: nothing deprecated, nothing announced
  const validator = new ResponseValidator(deprecatedDocument());
  const health = await send(base, '/healthz');
  t.same(validator.check('GET', '/healthz', health), [
    `GET /healthz 200: the operation is deprecated, so Deprecation must be ${HEALTH.deprecation}, not (none)`,
    `GET /healthz 200: the operation is deprecated, so Sunset must be ${HEALTH.sunsetHeader}, not (none)`,
    `GET /healthz 200: the operation is deprecated, so Link must hold <${HEALTH.link}>; rel="deprecation", not (none)`,
  ]);
  const page = await send(base, '/plants?limit=1', { headers: { authorization: `Bearer ${token}` } });
  t.match(validator.check('GET', '/plants?limit=1', page), [/^GET \/plants 200: a deprecated parameter was sent, so Deprecation must be/]);
  t.same(validator.check('GET', '/plants', await send(base, '/plants', { headers: { authorization: `Bearer ${token}` } })), []);
});

t.test('the contract must give a deprecation its dates and declare the headers it adds; generate refuses it otherwise', async (t) => {
  t.same(undeclaredDeprecationHeaders(deprecatedDocument()), []);
  const undeclared = undeclaredDeprecationHeaders(deprecatedDocument({ declare: false }));
  t.match(undeclared, [/^GET \/plants is deprecated, but its response 200 does not declare Deprecation, Sunset$/]);
  t.ok(undeclared.includes('GET /healthz is deprecated, but its response 200 does not declare Deprecation, Sunset, Link'));

  const undated = deprecatedDocument();
  delete undated.paths['/healthz'].get['x-sunset'];
  t.throws(() => deprecations(undated), {
    message: 'openapi.yaml: GET /healthz is deprecated, so it needs x-sunset: YYYY-MM-DD (a day that exists)',
  });
  const backwards = deprecatedDocument();
  backwards.paths['/healthz'].get['x-sunset'] = '2026-01-01';
  t.throws(() => deprecations(backwards), { message: 'openapi.yaml: GET /healthz: x-sunset must come after x-deprecated-at' });
  const impossible = deprecatedDocument();
  impossible.paths['/healthz'].get['x-sunset'] = '2027-02-30';
  t.throws(() => deprecations(impossible), /needs x-sunset: YYYY-MM-DD \(a day that exists\)/);
  const pathParameter = deprecatedDocument();
  Object.assign(pathParameter.paths['/plants/{id}'].delete.parameters[0], {
    deprecated: true,
    'x-deprecated-at': '2026-01-01',
    'x-sunset': '2027-01-01',
  });
  t.throws(() => deprecations(pathParameter), /DELETE \/plants\/\{id\} path parameter id: only query parameters can be deprecated/);
  const badLink = deprecatedDocument();
  badLink.paths['/healthz'].get['x-deprecation-link'] = 'see the changelog';
  t.throws(() => deprecations(badLink), /GET \/healthz: x-deprecation-link must be a URL/);
  const sunsetOnly = deprecatedDocument();
  delete sunsetOnly.paths['/healthz'].get.deprecated;
  t.throws(() => deprecations(sunsetOnly), /GET \/healthz has x-sunset or x-deprecated-at but not deprecated: true/);

  const dir = tempDir(t);
  writeFileSync(join(dir, 'undeclared.yaml'), JSON.stringify(deprecatedDocument({ declare: false })));
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(projectRoot, 'scripts', 'generate.ts'), '--check', '--input', join(dir, 'undeclared.yaml')],
    {
      encoding: 'utf8',
    },
  );
  t.equal(run.status, 1);
  t.match(run.stderr, /^generate: openapi\.yaml: GET \/plants is deprecated, but its response 200 does not declare Deprecation, Sunset;/);
});

t.test('a whole conformance run against the deployment that serves the copy, checked against the copy, passes', async (t) => {
  const contract = deprecatedContract();
  const { app, base, token } = await serve(t, contract);
  const file = join(tempDir(t), 'openapi.yaml');
  writeFileSync(file, contract);
  const run = await runConformance(runArgs(base, { token, otherToken: await tokenFor(app, 'bob') }, ['--contract', file]));
  t.equal(run.code, 0, run.stdout + run.stderr);
  // The listing checks send limit: each answer announced it, and the walk follows rel="next" beside rel="deprecation".
  t.match(run.stdout, /^PASS +GET \/plants +walks Link pages of 2 to the end/m);
  t.match(run.stdout, /^PASS +GET \/healthz +answers without a token/m);
});
