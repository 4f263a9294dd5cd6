// Traces: the real exporter sends over real HTTP to an OTLP receiver in the test; one create makes
// the tree docs/operations.md draws (request, its store calls, SQLite's commit), errors are marked,
// and each request's spans stay in its own trace.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { bearer, buildTestApp, tokenFor } from '../helpers/app.js';
import { fetchChecked } from '../helpers/app.js';
import { otlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { projectRoot } from '../helpers/paths.js';
import { pipeline } from '../helpers/pipeline.js';
import { runCli, startServer } from '../helpers/process.js';
import { freshStore, onlyOn, storeKind } from '../helpers/store-under-test.js';
import { until } from '../helpers/until.js';

const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;
const ERROR = 2;
const dbSystem = storeKind === 'sqlite' ? 'sqlite' : 'postgresql';
const version = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** A W3C traceparent for a caller's span, and its parts. */
function caller(n: number) {
  const traceId = n.toString(16).padStart(32, 'a');
  const spanId = n.toString(16).padStart(16, 'b');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The one span of the trace with that name (fails the test when there is not exactly one). */
function only(t: Test, spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  t.equal(found.length, 1, `one "${name}" span`);
  return found[0] ?? ({ attributes: {}, status: {}, links: [] } as unknown as ReceivedSpan);
}

t.test('one create with a traceparent: the request under the caller, its store calls under it, and the commit', async (t) => {
  const receiver = await otlpReceiver(t);
  const env = {
    ...(await freshStore(t)).env,
    BOOTSTRAP_TOKEN: 'off',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100', // the batch goes out within 100 ms, not 5 s
  };
  const token = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
  const server = await startServer(t, env);
  const { traceId, spanId, traceparent } = caller(1);

  const created = await fetchChecked(t, server.url, '/plants', {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json', traceparent, 'x-request-id': 'create-1' },
    body: JSON.stringify({ id: 7, name: 'Secret Fern', tag: 'shade' }),
  });
  t.equal(created.status, 200);
  t.equal(created.headers.traceparent, undefined, 'the answer carries no trace header');

  const expected = storeKind === 'sqlite' ? 5 : 4; // PostgreSQL commits inside the addPlant call: no commit span
  const inTrace = () => receiver.spans.filter((span) => span.traceId === traceId);
  await until(() => inTrace().length >= expected, 10_000, `${expected} spans of the trace`);
  const spans = inTrace();
  t.equal(spans.length, expected, spans.map((span) => span.name).join(', '));

  const request = only(t, spans, 'POST /plants');
  t.equal(request.parentSpanId, spanId, "the request span's parent is the caller's span");
  t.equal(request.kind, SERVER);
  t.match(request.attributes, {
    'http.request.method': 'POST',
    'http.route': '/plants',
    'http.response.status_code': 200,
    'url.path': '/plants',
    'url.scheme': 'http',
    'plant_store.request.id': 'create-1',
  });
  t.same(request.resource['service.name'], 'plant-store');
  t.same(request.resource['service.version'], version);

  const findToken = only(t, spans, 'plant-store.store findToken');
  t.equal(findToken.parentSpanId, request.spanId, 'the token lookup (authentication) is under the request');
  const handler = only(t, spans, 'handler POST /plants');
  t.equal(handler.parentSpanId, request.spanId, 'the route handler is under the request');
  const addPlant = only(t, spans, 'plant-store.store addPlant');
  t.equal(addPlant.parentSpanId, handler.spanId, 'the write is under the handler');
  for (const call of [findToken, addPlant]) {
    t.equal(call.kind, CLIENT);
    t.same(
      call.attributes,
      { 'db.system.name': dbSystem, 'db.operation.name': call.name.split(' ')[1] },
      `${call.name}: what and where, nothing written`,
    );
    t.not(call.status.code, ERROR);
  }
  if (storeKind === 'sqlite') {
    const commit = only(t, spans, 'plant-store.commit');
    t.equal(commit.parentSpanId, addPlant.spanId, 'the commit is under the write that waited for it');
    t.equal(commit.kind, INTERNAL);
    t.same(commit.attributes, { 'db.system.name': 'sqlite', 'db.operation.name': 'COMMIT', 'plant_store.commit.batch_size': 1 });
    t.same(commit.links, [], 'no other write shared it');
  }
  const everything = JSON.stringify(receiver.spans);
  t.notMatch(everything, /Secret Fern|shade/, 'no plant content in any span');
  t.notMatch(everything, new RegExp(token.slice(4)), 'no token in any span');
});

t.test('writes that share a commit: it is a child of the first and links to the others', onlyOn('sqlite'), async (t) => {
  const receiver = await otlpReceiver(t);
  const app = await buildTestApp(t, { traces: { url: `${receiver.endpoint}/v1/traces`, protocol: 'http/json' } });
  const token = await tokenFor(app, 'alice');
  const callers = [1, 2, 3].map((n) => caller(10 + n));
  const creates = callers.map(({ traceparent }, index) =>
    app.inject({ method: 'POST', url: '/plants', headers: { ...bearer(token), traceparent }, payload: { id: index, name: `P${index}` } }),
  );
  t.same(
    (await Promise.all(creates)).map((response) => response.statusCode),
    [200, 200, 200],
  );
  await app.close(); // flushes the spans

  const commits = receiver.spans.filter((span) => span.name === 'plant-store.commit');
  t.equal(commits.length, 1, 'three creates that came together share one commit');
  const writes = receiver.spans.filter((span) => span.name === 'plant-store.store addPlant');
  t.equal(writes.length, 3);
  const commit = commits[0]!;
  const [first, ...others] = callers.map(({ traceId }) => writes.find((write) => write.traceId === traceId)!);
  t.equal(commit.traceId, first!.traceId, "in the first write's trace");
  t.equal(commit.parentSpanId, first!.spanId, 'under its store call');
  t.same(
    commit.links,
    others.map((write) => ({ traceId: write.traceId, spanId: write.spanId })),
    'linked to the store calls of the other writes',
  );
  t.equal(commit.attributes['plant_store.commit.batch_size'], 3);
});

t.test('a store call that fails is an error span, and the request a 500', async (t) => {
  const receiver = await otlpReceiver(t);
  const app = await buildTestApp(t, { traces: { url: `${receiver.endpoint}/v1/traces`, protocol: 'http/json' } });
  const token = await tokenFor(app, 'alice');
  await app.store.close(); // the database goes away under the app
  const { traceId, traceparent } = caller(20);
  t.equal((await app.inject({ url: '/plants', headers: { ...bearer(token), traceparent } })).statusCode, 500);
  await app.close();

  const spans = receiver.spans.filter((span) => span.traceId === traceId);
  const findToken = only(t, spans, 'plant-store.store findToken');
  t.equal(findToken.status.code, ERROR, 'the failed call is marked as an error');
  t.type(findToken.attributes['error.type'], 'string');
  t.ok(findToken.status.message, `with the reason: ${findToken.status.message}`);
  const request = only(t, spans, 'GET /plants');
  t.equal(findToken.parentSpanId, request.spanId);
  t.equal(request.status.code, ERROR);
  t.equal(request.attributes['http.response.status_code'], 500);
});

t.test("pipelined requests: each one's store calls are in its own trace", async (t) => {
  const receiver = await otlpReceiver(t);
  const app = await buildTestApp(t, { traces: { url: `${receiver.endpoint}/v1/traces`, protocol: 'http/json' }, rateLimitPerMinute: 0 });
  const token = await tokenFor(app, 'alice');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const callers = [1, 2, 3, 4].map((n) => caller(30 + n));
  // The later ones wait for the answer ahead of them (http/connection.ts), and then go on.
  const requests = callers.map(
    ({ traceparent }) => `GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\ntraceparent: ${traceparent}\r\n\r\n`,
  );
  t.same(
    (await pipeline((app.server.address() as { port: number }).port, requests)).map((answer) => answer.status),
    [200, 200, 200, 200],
  );
  await app.close();

  for (const { traceId } of callers) {
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    const request = only(t, spans, 'GET /plants');
    t.equal(only(t, spans, 'plant-store.store findToken').parentSpanId, request.spanId, `${traceId}: its token lookup is under it`);
    t.equal(only(t, spans, 'handler GET /plants').parentSpanId, request.spanId);
    t.equal(only(t, spans, 'plant-store.store listPlants').parentSpanId, only(t, spans, 'handler GET /plants').spanId);
  }
});

t.test('OTLP/HTTP with protobuf, the default protocol', async (t) => {
  const receiver = await otlpReceiver(t);
  const app = await buildTestApp(t, { traces: { url: `${receiver.endpoint}/v1/traces`, protocol: 'http/protobuf' } });
  const { traceId, traceparent } = caller(40);
  t.equal((await app.inject({ url: '/plants', headers: { traceparent } })).statusCode, 401);
  await app.close();
  t.match(receiver.requests, [{ path: '/v1/traces', contentType: 'application/x-protobuf' }]);
  // Protobuf carries ids as raw bytes: the caller's trace id is in the export.
  t.ok(Buffer.concat(receiver.protobufBodies).includes(Buffer.from(traceId, 'hex')), 'the trace id is in the export');
});

t.test("OTEL_FASTIFY_IGNORE_PATHS leaves the load balancer's probes out", async (t) => {
  const receiver = await otlpReceiver(t);
  process.env.OTEL_FASTIFY_IGNORE_PATHS = '/{healthz,readyz}'; // @fastify/otel reads it when the app is built
  t.teardown(() => {
    delete process.env.OTEL_FASTIFY_IGNORE_PATHS;
  });
  const app = await buildTestApp(t, { traces: { url: `${receiver.endpoint}/v1/traces`, protocol: 'http/json' } });
  for (const url of ['/healthz', '/readyz', '/plants']) await app.inject({ url });
  await app.close();
  t.same(
    receiver.spans.filter((span) => span.kind === SERVER).map((span) => span.name),
    ['GET /plants'],
    'only the API request is traced',
  );
});
