// The conformance package's parts on their own: the contract it loads, the declared answers and which of
// them a run may leave out, the exact JSON reader, contract differences, and the JUnit report.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { loadContract } from '../../../clients/conformance/src/contract-file.js';
import { declaredAnswers, whyNotExercisable } from '../../../clients/conformance/src/declared-answers.js';
import { parseExactJson } from '../../../clients/conformance/src/exact-json.js';
import { jsonDifferences } from '../../../clients/conformance/src/json-differences.js';
import { junit, line, type Result } from '../../../clients/conformance/src/report.js';
import { uncheckedOperations } from '../../../clients/conformance/src/unchecked-operations.js';
import { projectRoot } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/temp-dir.js';

const contract = () => parse(readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8')) as Record<string, any>;

t.test('a contract file is read as YAML or JSON, and a file that is no OpenAPI document is refused', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(contract()));
  t.same(loadContract(join(dir, 'openapi.json')), contract());
  writeFileSync(join(dir, 'other.yaml'), 'just: text');
  t.throws(() => loadContract(join(dir, 'other.yaml')), /other\.yaml is not an OpenAPI document \(it has no paths\)/);
});

t.test('every declared (operation, status, media type), one per media type', async (t) => {
  const answers = declaredAnswers(contract()).map((answer) => answer.key);
  t.ok(answers.length >= 30, `${answers.length} declared answers`);
  t.ok(answers.includes('GET /plants 200 application/json'));
  t.ok(answers.includes('GET /plants 200 application/vnd.plant-store.listing+json'));
  t.ok(answers.includes('DELETE /plants/{id} 204'), 'an answer without a body has no media type');
  t.ok(answers.includes('GET /openapi.yaml 200 application/yaml'));
});

t.test('only answers no client can provoke are excused, each with its reason; anything else must be exercised', async (t) => {
  const document = contract();
  // A status added to the contract that this package has no check for: never excused, so a run fails until one asks for it.
  document.paths['/plants'].post.responses['422'] = { $ref: '#/components/responses/BadPlant' };
  const excused = (rateLimit: boolean) =>
    declaredAnswers(document)
      .filter((answer) => whyNotExercisable(answer, { rateLimit }) !== undefined)
      .map((answer) => `${answer.operation} ${answer.status}`);
  t.same(excused(true), [
    'GET /plants 500',
    'GET /plants 503',
    'POST /plants 500',
    'POST /plants 503',
    'DELETE /plants/{id} 500',
    'DELETE /plants/{id} 503',
    'GET /readyz 503',
    'GET /openapi.json 503',
    'GET /openapi.yaml 503',
  ]);
  t.same(
    excused(false).filter((answer) => answer.endsWith(' 429')),
    ['GET /plants 429', 'POST /plants 429', 'DELETE /plants/{id} 429'],
    '429 only without --rate-limit',
  );
  t.notOk(excused(false).includes('POST /plants 422'));
});

t.test('JSON is read with exact integers: 2^53 + 1 and the int64 extremes stay themselves', async (t) => {
  t.same(parseExactJson('[{"id":9007199254740993,"name":"a"},{"id":-9223372036854775808},{"id":9223372036854775807,"n":1.5}]'), [
    { id: 9007199254740993n, name: 'a' },
    { id: -9223372036854775808n },
    { id: 9223372036854775807n, n: 1.5 },
  ]);
  t.throws(() => parseExactJson('[1,'));
});

t.test('contract differences are JSON pointers', async (t) => {
  const shipped = { info: { version: '1.0.0' }, paths: { '/plants': { get: {} } }, tags: ['a'] };
  t.same(jsonDifferences(shipped, structuredClone(shipped)), []);
  t.same(jsonDifferences(shipped, { info: { version: '1.1.0' }, paths: { '/plants': {} }, tags: ['a', 'b'], extra: 1 }), [
    '/info/version',
    '/paths/~1plants/get (missing)',
    '/tags/1 (not in the shipped contract)',
    '/extra (not in the shipped contract)',
  ]);
  t.same(jsonDifferences([1], { 0: 1 }), ['/']);
});

t.test('one line per check, and JUnit XML with one testcase each, escaped', async (t) => {
  const results: Result[] = [
    { status: 'pass', operation: 'GET /healthz', title: 'answers', expected: '200', actual: '200', seconds: 0.01 },
    {
      status: 'fail',
      operation: 'POST /plants',
      title: 'refuses <this> & "that"',
      expected: '400',
      actual: '500 {"error":500}\u0001',
      seconds: 0.02,
    },
    { status: 'skip', operation: 'POST /plants', title: 'keeps id 1 exactly', expected: '200', actual: 'taken', seconds: 0 },
  ];
  t.equal(line(results[1]!), 'FAIL  POST /plants  refuses <this> & "that": expected 400; got 500 {"error":500}\u0001');
  const report = junit(results, 'suite');
  t.match(report, '<testsuites name="plant-store conformance" tests="3" failures="1" errors="0" skipped="1" time="0.030">');
  t.match(report, '<testcase classname="GET /healthz" name="answers" time="0.010"/>');
  t.match(report, '<testcase classname="POST /plants" name="refuses &lt;this&gt; &amp; &quot;that&quot;" time="0.020">');
  t.match(report, '<failure message="expected 400; got 500 {&quot;error&quot;:500}?">');
  t.match(report, '<skipped message="taken"/>');
});

t.test('an operation of the contract that no check of the run is about fails, by name; a skip when interrupted', async (t) => {
  const grown = contract();
  grown.paths['/plants/{id}'].get = { operationId: 'getPlant', responses: { '200': { description: 'A plant.' } } };
  grown.paths['/gardens'] = { post: { responses: { '201': { description: 'A garden.' } } } };
  const ran = (operation: string): Result => ({ status: 'pass', operation, title: 't', expected: 'e', actual: 'a', seconds: 0 });
  const checked = [
    'GET /plants',
    'POST /plants',
    'DELETE /plants/{id}',
    'GET /healthz',
    'GET /readyz',
    'GET /openapi.json',
    'GET /openapi.yaml',
  ];
  t.same(uncheckedOperations(contract(), checked.map(ran), false), [], 'every operation of openapi.yaml has a check');
  const unchecked = uncheckedOperations(grown, checked.map(ran), false);
  t.same(unchecked.map(line), [
    'FAIL  GET /plants/{id}  has checks in this runner (getPlant): expected checks of getPlant in @plant-store/conformance (clients/conformance/src/checks/); got none: openapi.yaml declares getPlant, and this runner has no check for it',
    'FAIL  POST /gardens  has checks in this runner ((no operationId)): expected checks of (no operationId) in @plant-store/conformance (clients/conformance/src/checks/); got none: openapi.yaml declares (no operationId), and this runner has no check for it',
  ]);
  t.same(
    uncheckedOperations(grown, checked.map(ran), true).map((result) => [result.status, result.operation]),
    [
      ['skip', 'GET /plants/{id}'],
      ['skip', 'POST /gardens'],
    ],
  );
  // Any result about an operation, whatever its status, is a check the runner has for it.
  t.same(uncheckedOperations(grown, [...checked, 'GET /plants/{id}', 'POST /gardens'].map(ran), false), []);
});
