// The conformance command's parts on their own: where it finds openapi.yaml, how it lists contract
// differences, and the JUnit report it writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { contractPath } from '../../src/conformance/contract-file.js';
import { jsonDifferences } from '../../src/conformance/json-differences.js';
import { junit, line, type Result } from '../../src/conformance/report.js';
import { tempDir } from '../helpers/temp-dir.js';

t.test('openapi.yaml is found in the plant-store package above the module, as installed under node_modules', async (t) => {
  const root = tempDir(t);
  const installed = join(root, 'node_modules', 'plant-store');
  mkdirSync(join(installed, 'dist', 'src', 'conformance'), { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'consumer' }));
  writeFileSync(join(root, 'openapi.yaml'), 'not this one');
  writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'plant-store' }));
  writeFileSync(join(installed, 'openapi.yaml'), 'openapi: 3.1.0');
  t.equal(contractPath(join(installed, 'dist', 'src', 'conformance')), join(installed, 'openapi.yaml'));
  t.throws(() => contractPath(root), /openapi\.yaml of the plant-store package was not found above/);
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
