// Request ids: a usable X-Request-Id is kept, anything else replaced; every answer carries the id,
// from routes, errors, the router and Node's HTTP layer alike, and the request's log lines too.
import { connect } from 'node:net';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { requestIdOf } from '../../src/http/headers.js';
import { bearer, inject, testConfig, tokenFor } from '../helpers/app.js';

/** Writes raw bytes on a new connection and resolves with everything read until it closes. */
function sendRaw(port: number, text: string): Promise<string> {
  return new Promise<string>((resolve) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

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

t.test('every answer carries the id, and the log lines of its request too', async (t) => {
  const lines: string[] = [];
  const app = await buildApp({ ...(await testConfig(t)), logLevel: 'info' }, { logStream: { write: (line) => void lines.push(line) } });
  t.teardown(() => app.close());
  const token = await tokenFor(app, 'alice');
  const answers = [
    await inject(t, app, { url: '/plants', headers: { ...bearer(token), 'x-request-id': 'from-the-client' } }),
    await inject(t, app, { url: '/plants' }), // 401
    await inject(t, app, { url: '/plants?limit=0', headers: bearer(token) }), // 400
    await inject(t, app, { method: 'DELETE', url: '/plants/1', headers: bearer(token) }), // 404
    await inject(t, app, { url: '/nowhere' }), // the router's 404
    await inject(t, app, { method: 'PUT', url: '/plants' }), // 405
    await inject(t, app, { url: '/healthz' }),
    await inject(t, app, { url: '/docs/' }),
  ];
  t.equal(answers[0]!.headers['x-request-id'], 'from-the-client', "the client's id comes back");
  for (const answer of answers.slice(1)) t.match(answer.headers['x-request-id'], UUID, `${answer.status}: a new id`);
  const logged = lines
    .map((line) => JSON.parse(line) as { reqId?: string; msg: string })
    .filter((line) => line.reqId === 'from-the-client');
  t.same(
    logged.map((line) => line.msg),
    ['incoming request', 'request completed'],
    'the log lines of that request carry its id',
  );
});

t.test("answers made before Fastify has a request carry an id too: Node's 400 and the 417", async (t) => {
  const app = await buildApp(await testConfig(t));
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const send = (text: string) => sendRaw(port, text);
  const notHttp = await send('NOT HTTP AT ALL\r\n\r\n');
  t.match(notHttp, /^HTTP\/1.1 400 /);
  t.match(notHttp, /\r\nx-request-id: [0-9a-f-]{36}\r\n/);
  const expect = await send(
    'POST /plants HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine\r\nExpect: teapot\r\nContent-Length: 2\r\nConnection: close\r\n\r\n',
  );
  t.match(expect, /^HTTP\/1.1 417 /);
  t.match(expect, /\r\nx-request-id: mine\r\n/i, "the client's id, when Node had read the headers");
});

// Fastify had begun these requests (their headers were read); Node refused their bodies. Before, the answer
// carried a new id and the log only the request's "incoming request" line.
t.test('a body Node refuses midway: the answer keeps the request id, and the log says how it ended', async (t) => {
  const lines: string[] = [];
  const app = await buildApp({ ...(await testConfig(t)), logLevel: 'info' }, { logStream: { write: (line) => void lines.push(line) } });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const token = await tokenFor(app, 'alice');
  const send = (text: string) => sendRaw(port, text);
  const head = (id: string) =>
    `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nX-Request-Id: ${id}\r\n`;
  for (const [id, rest] of [
    ['bad-chunk-size', 'Transfer-Encoding: chunked\r\n\r\nzz\r\n'],
    ['chunk-too-long', 'Transfer-Encoding: chunked\r\n\r\n2\r\n{"id":1}\r\n0\r\n\r\n'],
  ] as const) {
    const answer = await send(head(id) + rest);
    t.match(answer, /^HTTP\/1.1 400 /, id);
    t.match(answer, new RegExp(`\r\nx-request-id: ${id}\r\n`), `${id}: the answer carries the request's own id`);
    const logged = lines.map((line) => JSON.parse(line) as { reqId?: string; msg: string }).filter((line) => line.reqId === id);
    t.same(
      logged.map((line) => line.msg),
      ['incoming request', 'request refused: The request is not valid HTTP.'],
      `${id}: its log lines end with the refusal`,
    );
  }
  const listed = await inject(t, app, { url: '/plants', headers: bearer(token) });
  t.same(listed.json(), [], 'nothing was stored');
  // The router's refusals come before any hook, and Fastify logs no "request completed" for them.
  const badUrl = await inject(t, app, { url: '/plants/%zz', headers: { 'x-request-id': 'bad-url' } });
  t.equal(badUrl.status, 400);
  t.same(
    lines
      .map((line) => JSON.parse(line) as { reqId?: string; msg: string })
      .filter((line) => line.reqId === 'bad-url')
      .map((line) => line.msg),
    ['incoming request', `request refused: ${badUrl.json().message}`],
    'a URL the router refuses: its log ends with the refusal',
  );
});
