// The contract sentinel checks each response twice: against the generated schemas and against
// openapi.yaml itself (Ajv 2020), so a generator that dropped a rule would not hide a wrong response.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { ResponseValidator } from '../../clients/conformance/src/response-validator.js';
import { checkResponse } from '../helpers/contract.js';
import { projectRoot } from '../helpers/paths.js';

/** What every answer carries: the JSON type and its request id. */
const json = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r1' };
interface Contract {
  components: { schemas: { Plant: { properties: { name: { maxLength: number } } } } };
}
const contract = () => parse(readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8')) as Contract & Record<string, unknown>;

/** What a create's 200 carries besides: where the plant is. */
const created = { ...json, location: '/plants/1' };

t.test('a wrong response is reported by both the generated schemas and openapi.yaml', async (t) => {
  const problems = checkResponse('POST', '/plants', { status: 200, headers: created, body: '{"name":"Fern","colour":"green"}' });
  t.ok(
    problems.some((problem) => problem.startsWith('addPlant 200 application/json body does not match')),
    'generated',
  );
  t.ok(
    problems.some((problem) =>
      problem.startsWith(
        'openapi.yaml (Ajv 2020): POST /plants 200 body does not match openapi.yaml: body must NOT have additional properties',
      ),
    ),
    'openapi.yaml',
  );
  t.same(checkResponse('POST', '/plants', { status: 200, headers: created, body: '{"name":"Fern"}' }), [], 'a right one passes both');
});

t.test('the direct check reads the document, not generated/: a rule only openapi.yaml has is enforced', async (t) => {
  // As if the generator had lost maxLength: the document still has it.
  const document = contract();
  document.components.schemas.Plant.properties.name.maxLength = 3;
  const problems = new ResponseValidator(document).check('POST', '/plants', { status: 200, headers: created, body: '{"name":"Fern"}' });
  t.same(problems, ['POST /plants 200 body does not match openapi.yaml: body/name must NOT have more than 3 characters']);
});

t.test('a header named x-... or ratelimit... (any case) must be declared for the answer that sends it', async (t) => {
  const validator = new ResponseValidator(contract());
  const health = { 'content-type': 'application/json', 'x-request-id': 'r1', 'x-content-type-options': 'nosniff' };
  t.same(validator.check('GET', '/healthz', { status: 200, headers: health, body: '{"status":"ok"}' }), [], 'declared ones pass');
  t.same(
    validator.check('GET', '/healthz', {
      status: 200,
      headers: { ...health, 'x-ratelimit-limit': '5', ratelimit: '"per-token";r=4;t=60', 'X-Powered-By': 'x', server: 'y' },
      body: '{"status":"ok"}',
    }),
    [
      'GET /healthz 200 sends the header x-ratelimit-limit, which openapi.yaml does not declare for this answer',
      'GET /healthz 200 sends the header ratelimit, which openapi.yaml does not declare for this answer',
      'GET /healthz 200 sends the header X-Powered-By, which openapi.yaml does not declare for this answer',
    ],
    'the open endpoints are not rate limited: RateLimit is not declared there; Server is not watched',
  );
});

t.test('status, required headers, content type, Error.error and empty bodies are checked from the document', async (t) => {
  const validator = new ResponseValidator(contract());
  const error = (status: number) => JSON.stringify({ error: status, message: 'm' });
  t.same(validator.check('GET', '/plants?limit=1', { status: 418, headers: json, body: error(418) }), [
    'GET /plants answered 418, which openapi.yaml does not declare (it declares 200, 400, 401, 429, 500, 503)',
  ]);
  t.same(validator.check('DELETE', '/plants/7', { status: 401, headers: json, body: error(401) }), [
    'DELETE /plants/{id} 401 lacks the required header WWW-Authenticate',
  ]);
  const limited = { ...json, 'ratelimit-policy': '"per-token";q=5;w=60', ratelimit: '"per-token";r=0;t=9' };
  t.same(validator.check('GET', '/plants', { status: 429, headers: { ...limited, 'retry-after': 'soon' }, body: error(429) }), [
    'GET /plants 429 header Retry-After: Retry-After must be integer',
  ]);
  t.same(validator.check('GET', '/plants', { status: 429, headers: { ...json, 'retry-after': '9' }, body: error(429) }), [
    'GET /plants 429 lacks the required header RateLimit-Policy',
    'GET /plants 429 lacks the required header RateLimit',
  ]);
  t.same(
    validator.check('GET', '/plants', { status: 429, headers: { ...limited, 'retry-after': '9', ratelimit: '9' }, body: error(429) }),
    ['GET /plants 429 header RateLimit: RateLimit must match pattern "^"(per-token|auth-failures)";r=[0-9]+;t=[0-9]+$"'],
  );
  t.same(validator.check('DELETE', '/plants/7', { status: 404, headers: json, body: error(400) }), [
    'DELETE /plants/{id} 404: the Error\'s "error" is 400, not the status 404',
  ]);
  t.same(validator.check('DELETE', '/plants/7', { status: 204, headers: { 'x-request-id': 'r1' }, body: 'x' }), [
    'DELETE /plants/{id} 204 must have no body, but has 1 bytes',
  ]);
  t.same(validator.check('GET', '/healthz', { status: 200, headers: { 'content-type': 'text/plain', 'x-request-id': 'r1' }, body: 'ok' }), [
    'GET /healthz 200 has content-type "text/plain", not application/json',
  ]);
  t.same(
    validator.check('GET', '/openapi.yaml', {
      status: 200,
      headers: { 'content-type': 'application/yaml', 'x-request-id': 'r1' },
      body: 'openapi: 3.1.0',
    }),
    [],
  );
  t.same(
    validator.check('GET', '/nowhere', { status: 404, headers: json, body: error(404) }),
    [],
    "not an operation: not this check's business",
  );
});
