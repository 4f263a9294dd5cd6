// The HTTP edge's corpus: every row of edge-cases.ts sent to one listening app, and what comes back checked;
// beside it, the checks that are no request (the request id's rules). A probe finding becomes a row.
import { connect } from 'node:net';
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify from 'fastify';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { API_SECURITY_HEADERS, requestIdOf } from '../../src/http/headers.js';
import { DOCUMENT_SECURITY_HEADERS } from '../../src/plugins/docs.js';
import { bearer, buildTestApp, inject, testConfig, tokenFor } from '../helpers/app.js';
import { checkResponse } from '../helpers/contract.js';
import { parseAnswers, pipeline, type Answer } from '../helpers/pipeline.js';
import { breakStore } from '../helpers/store-under-test.js';
import { until } from '../helpers/until.js';
import { DOCUMENT_ONLY, edgeCases, TOKEN, UUID, type EdgeCase } from './edge-cases.js';

/** Sends raw bytes over a real socket: the first whole answer, or what came before the server closed, and the text read. */
function raw(port: number, bytes: Buffer): Promise<{ answer: Answer; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += String(chunk);
      const answer = parseAnswers(text)[0];
      if (answer === undefined) return;
      socket.destroy();
      resolve({ answer, text });
    });
    socket.on('error', (error) => (text ? undefined : reject(error)));
    socket.on('close', () =>
      resolve({ answer: parseAnswers(text)[0] ?? { status: Number(text.split(' ')[1]), headers: {}, body: text }, text }),
    );
    socket.write(bytes);
  });
}

/** `bytes` with the real token for the placeholder (latin1 keeps any binary part as it is). */
const withToken = (bytes: string | Buffer, token: string) =>
  Buffer.from((typeof bytes === 'string' ? Buffer.from(bytes) : bytes).toString('latin1').replaceAll(TOKEN, token), 'latin1');

t.test('a client id is used when it is printable ASCII of at most 128 characters', async (t) => {
  const id = (value?: string) => requestIdOf({ headers: value === undefined ? {} : { 'x-request-id': value } });
  for (const kept of ['abc', 'trace 7f:42/x', 'x'.repeat(128), '~!@#$%^&*()']) t.equal(id(kept), kept, JSON.stringify(kept));
  const token = `pst_${'a'.repeat(43)}`;
  const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln';
  // A token in the wrong header would be logged with every line of the request, and echoed.
  for (const replaced of [undefined, '', 'x'.repeat(129), 'tab\there', 'new\nline', 'é', '\u0000', token, jwt])
    t.match(id(replaced), UUID, `${JSON.stringify(replaced)} is replaced by a new id`);
  t.not(id(), id(), 'each new id is new');
});

/** Helmet with a content security policy that allows only this origin's scripts and styles (Swagger UI sets inline styles). */
const DOCUMENT_POLICY: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      frameAncestors: ["'none'"],
      formAction: ["'self'"],
    },
  },
};

/** Helmet kept to OWASP's API headers (strict policy, no framing, no sniffing, HSTS) and its same-origin resource policy. */
const API_POLICY: FastifyHelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  frameguard: { action: 'deny' },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
};

/** Headers of any response, not set by helmet. */
const NOT_HELMET = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

/** The headers @fastify/helmet really sets on a response, registered with `policy` (its defaults without one). */
async function helmetSets(policy: FastifyHelmetOptions = {}): Promise<Record<string, string>> {
  const reference = Fastify();
  await reference.register(helmet, policy);
  reference.get('/', async () => 'ok');
  const response = await reference.inject('/');
  await reference.close();
  return Object.fromEntries(
    Object.entries(response.headers)
      .filter(([name]) => !NOT_HELMET.has(name))
      .map(([name, value]) => [name, String(value)]),
  );
}

t.test('the security header constants are exactly what helmet sets for each policy', async (t) => {
  t.same(DOCUMENT_SECURITY_HEADERS, await helmetSets(DOCUMENT_POLICY), 'the document set');
  const { 'cache-control': cacheControl, ...fromHelmet } = API_SECURITY_HEADERS;
  t.same(fromHelmet, await helmetSets(API_POLICY), 'the API set, apart from its own Cache-Control');
  t.equal(cacheControl, 'no-store');
});

t.test("the docs' headers are helmet's defaults with the strict content security policy", async (t) => {
  const headers = DOCUMENT_SECURITY_HEADERS;
  t.equal(headers['content-security-policy']?.startsWith("default-src 'self';"), true);
  t.match(headers['content-security-policy'], /object-src 'none';frame-ancestors 'none'/);
  t.equal(headers['x-content-type-options'], 'nosniff');
  t.equal(headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
  t.equal(headers['x-frame-options'], 'SAMEORIGIN');
  for (const name of DOCUMENT_ONLY) t.ok(headers[name], name);
  t.notOk('content-type' in headers || 'date' in headers || 'content-length' in headers, 'only helmet headers');

  // Default helmet, applied per request by @fastify/helmet, agrees on everything but the policy we chose.
  const perRequest = await helmetSets();
  t.same(Object.keys(headers).sort(), Object.keys(perRequest).sort(), 'the same headers');
  for (const [name, value] of Object.entries(headers)) {
    if (name !== 'content-security-policy') t.equal(value, perRequest[name], name);
  }
});

t.test("API responses get OWASP's REST set: no framing, no sniffing, no caching, HTTPS only", async (t) => {
  t.same(API_SECURITY_HEADERS, {
    'content-security-policy': "default-src 'none';frame-ancestors 'none'",
    'cross-origin-resource-policy': 'same-origin',
    'strict-transport-security': 'max-age=31536000; includeSubDomains',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
  });
});

t.test('the edge cases, on one app', async (t) => {
  const lines: string[] = [];
  const config = await testConfig(t, {
    headersTimeoutMs: 1000,
    requestTimeoutMs: 2000,
    logLevel: 'info',
    corsOrigins: ['https://app.example.com'],
  });
  const app = await buildApp(config, { logStream: { write: (line) => void lines.push(line) } });
  t.teardown(() => app.close());
  const token = await tokenFor(app, 'alice');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const logged = (id: string) =>
    lines
      .map((line) => JSON.parse(line) as { reqId?: string; msg: string })
      .filter((line) => line.reqId === id)
      .map((line) => line.msg);

  /** Every user's plants, and the tokens without their last use (sending as alice records one: no change a row made). */
  async function snapshot() {
    return {
      plants: await Promise.all(['alice', 'bob'].map((user) => app.store.forRequest().listPlants(user, undefined, 1000))),
      tokens: (await app.store.listTokens()).map(({ lastUsedAt: _used, ...token }) => token),
    };
  }

  async function send(row: EdgeCase): Promise<{ answer: Answer; text?: string; all?: Answer[] }> {
    const { send } = row;
    if ('inject' in send) {
      const headers = Object.fromEntries(
        Object.entries(send.inject.headers ?? {}).map(([name, value]) => [name, String(value).replaceAll(TOKEN, token)]),
      );
      const options = { ...send.inject, headers };
      const reply = await inject(t, app, options);
      return { answer: { status: reply.status, headers: reply.headers as Record<string, string>, body: reply.body } };
    }
    if ('raw' in send) return raw(port, withToken(send.raw, token));
    const answers = await pipeline(
      port,
      send.pipelined.map((request) => request.replaceAll(TOKEN, token)),
    );
    return { answer: answers.at(-1)!, all: answers };
  }

  for (const row of edgeCases) {
    const what = row.name;
    const before = row.storeUnchanged ? await snapshot() : undefined;
    const { answer, text, all } = await send(row);
    if (before !== undefined) t.same(await snapshot(), before, `${what}: the store is unchanged`);
    if (row.contract)
      t.same(
        checkResponse('GET', '/no-operation', { status: row.status, headers: { 'content-type': 'application/json' }, body: answer.body }),
        [],
        `${what}: Error shape`,
      );
    if (row.statuses !== undefined)
      t.same(
        all?.map((one) => one.status),
        row.statuses,
        `${what}: every answer, in order`,
      );
    for (const [index, body] of Object.entries(row.earlier ?? {})) t.equal(all?.[Number(index)]?.body, body, `${what}: answer ${index}`);
    t.equal(answer.status, row.status, `${what}: ${row.status}`);
    if (row.message !== undefined) {
      t.match(answer.headers['content-type'], /^application\/json/, `${what}: JSON`);
      const body = JSON.parse(answer.body) as Record<string, unknown>;
      t.same(Object.keys(body).sort(), ['error', 'message'], `${what}: the Error shape`);
      t.equal(body.error, row.status, `${what}: error is the status`);
      t.match(body.message, row.message, `${what}: ${String(body.message)}`);
    }
    const security = row.security ?? (row.message === undefined ? undefined : 'api');
    if (security !== undefined) {
      const expected = security === 'docs' ? DOCUMENT_SECURITY_HEADERS : API_SECURITY_HEADERS;
      for (const [name, value] of Object.entries(expected)) t.equal(answer.headers[name], value, `${what}: ${name}`);
      if (security === 'api') for (const name of DOCUMENT_ONLY) t.notOk(name in answer.headers, `${what}: no ${name}`);
    }
    for (const [name, value] of Object.entries(row.headers ?? {})) {
      if (value === undefined) t.notOk(name in answer.headers, `${what}: no ${name}`);
      else if (typeof value === 'string') t.equal(answer.headers[name], value, `${what}: ${name}`);
      else for (const pattern of [value].flat()) t.match(answer.headers[name], pattern, `${what}: ${name}`);
    }
    for (const [name, [value, why]] of Object.entries(row.headersNot ?? {})) {
      if (typeof value === 'string') t.not(answer.headers[name], value, `${what}: ${why}`);
      else t.notMatch(answer.headers[name], value, `${what}: ${why}`);
    }
    if (typeof row.body === 'string') t.equal(answer.body, row.body, `${what}: the body`);
    else if (row.body !== undefined) t.match(answer.body, row.body, `${what}: the body`);
    for (const [pattern, why] of row.bodyNot ?? []) t.notMatch(answer.body, pattern, `${what}: ${why}`);
    if (row.shorterThan !== undefined)
      t.ok(answer.body.length < row.shorterThan, `${what}: a short message (${answer.body.length} bytes), not the whole URL`);
    for (const pattern of row.text ?? []) t.match(text, pattern, `${what}: the answer's text`);
    if (row.logged !== undefined) {
      const { id, messages } = row.logged;
      const expected = messages.map((message) =>
        message.replace('{message}', () => String((JSON.parse(answer.body) as { message: unknown }).message)),
      );
      // The log line may follow the answer on the wire: wait for as many lines, then compare them.
      await until(() => logged(id).length >= expected.length, 5000, `${what}: its log lines`);
      t.same(logged(id), expected, `${what}: its log lines`);
    }
  }

  // Beside the table, as its expected header is the file's length: the docs' file server's 416.
  const css = await inject(t, app, { url: '/docs/static/index.css' });
  const outside = await inject(t, app, { url: '/docs/static/index.css', headers: { range: 'bytes=100000-' } });
  t.equal(outside.status, 416);
  t.equal(outside.headers['content-range'], `bytes */${css.body.length}`);
  t.equal(outside.json().message, 'The range asked for is outside the file; Content-Range gives its length.');
});

t.test('a 500 carries the API security headers too', async (t) => {
  const app = await buildTestApp(t);
  const token = bearer(await tokenFor(app, 'alice'));
  await app.store.close(); // a fault: every read fails from here on
  const reply = await inject(t, app, { url: '/plants', headers: token });
  t.equal(reply.status, 500);
  for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) t.equal(reply.headers[name], value, `${reply.status}: ${name}`);
});

t.test('a database fault answers 500 with no stack, SQL or path, and logs it with the request id', async (t) => {
  const config = await testConfig(t, { logLevel: 'info' });
  const logs: string[] = [];
  const app = await buildApp(config, { logStream: { write: (line) => logs.push(line) } });
  t.teardown(() => app.close());
  const token = await tokenFor(app, 'alice');

  // A real fault: another connection drops the table under the running service.
  const cause = await breakStore(config);

  const headers = { ...bearer(token), 'content-type': 'application/json' };
  const ids: string[] = [];
  for (const request of [
    { method: 'GET' as const, url: '/plants' },
    { method: 'POST' as const, url: '/plants', payload: '{"id":1,"name":"x"}' },
    { method: 'DELETE' as const, url: '/plants/1' },
  ]) {
    const reply = await inject(t, app, { ...request, headers });
    t.equal(reply.status, 500, `${request.method} ${request.url}`);
    const id = String(reply.headers['x-request-id']);
    ids.push(id);
    t.equal(
      reply.json().message,
      `Something went wrong on our side; it is logged as request ${id}. Please retry.`,
      'the message names the request id the answer carries',
    );
    t.notMatch(reply.body, /plants\.db|sqlite|postgres|relation|SELECT|INSERT|DELETE FROM|no such table|\bat\b.*\.ts/i);
  }
  const errorLines = logs.filter((line) => line.includes('"level":50'));
  t.equal(errorLines.length, 3, 'each 500 is logged');
  t.same(
    errorLines.map((line) => (JSON.parse(line) as { reqId: string }).reqId),
    ids,
    'each logged under that same id',
  );
  t.match(errorLines[0], cause, 'the log keeps the cause');
  t.ok(logs.length > 6, 'requests are logged');
  t.notMatch(logs.join(''), /pst_[A-Za-z0-9_-]{43}/, 'no token in the logs');

  const ready = await inject(t, app, { url: '/readyz' });
  t.equal(ready.status, 503);
  t.match(ready.json().message, /database is not reachable/);
});

t.test('a database fault while checking the token is a 500, not a 401, and not a failed authentication', async (t) => {
  const config = await testConfig(t, { authFailuresPerMinute: 2 });
  const app = await buildApp(config);
  t.teardown(() => app.close());
  const token = await tokenFor(app, 'alice');
  await breakStore(config, 'tokens');
  for (let i = 0; i < 4; i++) {
    const reply = await inject(t, app, { url: '/plants', headers: bearer(token) });
    t.equal(reply.status, 500, `attempt ${i + 1}: 500, never 429`);
    t.equal(reply.headers['www-authenticate'], undefined, 'no challenge: the token was not refused');
  }
});
