// What Node's HTTP layer refuses before Fastify has a request, and what Fastify's router refuses
// before any hook, is answered like everything else: the Error shape, with the API's security headers.
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { API_SECURITY_HEADERS } from '../../src/http/headers.js';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { parseAnswers, type Answer } from '../helpers/pipeline.js';

/** The first whole answer in `text`, if it has come. */
const parse = (text: string): Answer | undefined => parseAnswers(text)[0];

/** Sends raw bytes over a real socket and reads the first whole answer, or what came before the server closed. */
function raw(port: number, bytes: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += String(chunk);
      const answer = parse(text);
      if (answer === undefined) return;
      socket.destroy();
      resolve(answer);
    });
    socket.on('error', (error) => (text ? undefined : reject(error)));
    socket.on('close', () => resolve(parse(text) ?? { status: Number(text.split(' ')[1]), headers: {}, body: text }));
    socket.write(bytes);
  });
}

async function listening(t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t, { headersTimeoutMs: 1000, requestTimeoutMs: 2000 });
  const token = await tokenFor(app, 'alice');
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, token, port: (app.server.address() as { port: number }).port, expected: API_SECURITY_HEADERS };
}

function checkErrorAnswer(
  t: Parameters<typeof buildTestApp>[0],
  what: string,
  answer: Answer,
  status: number,
  expected: Record<string, string>,
  message: RegExp,
) {
  t.equal(answer.status, status, `${what}: ${status}`);
  t.match(answer.headers['content-type'], /^application\/json/, `${what}: JSON`);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  t.same(Object.keys(body).sort(), ['error', 'message'], `${what}: the Error shape`);
  t.equal(body.error, status, `${what}: error is the status`);
  t.match(body.message, message, `${what}: ${String(body.message)}`);
  for (const [name, value] of Object.entries(expected)) t.equal(answer.headers[name], value, `${what}: ${name}`);
}

t.test("Node's own refusals: the Error shape with the API's security headers", async (t) => {
  const { port, token, expected } = await listening(t);
  const cases: Array<[string, string, number, RegExp]> = [
    ['no Host header', 'GET /healthz HTTP/1.1\r\n\r\n', 400, /Host header/],
    ['two Host headers', 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 400, /more than one Host header/],
    [
      'two Host headers on a plant operation',
      `GET /plants HTTP/1.1\r\nHost: a\r\nhost: a\r\nAuthorization: Bearer ${token}\r\n\r\n`,
      400,
      /more than one Host header/,
    ],
    ['no Host header on a plant operation', `GET /plants HTTP/1.1\r\nAuthorization: Bearer ${token}\r\n\r\n`, 400, /Host header/],
    ['Expect: foo', 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n', 417, /Expect header "foo"/],
    ['headers over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, /larger than 16 KiB/],
    // Node keeps the first of two; a proxy in front may have checked the other.
    [
      'a valid token, then another Authorization',
      `GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nauthorization: Bearer pst_other\r\n\r\n`,
      400,
      /more than one Authorization header/,
    ],
    [
      'another Authorization, then a valid token',
      `GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Basic eDp5\r\nAuthorization: Bearer ${token}\r\n\r\n`,
      400,
      /more than one Authorization header/,
    ],
    ['text that is not HTTP', 'HELLO THERE\r\n\r\n', 400, /not valid HTTP/],
    ['a header line without a colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n', 400, /not valid HTTP/],
    ['CONNECT to a host (this is no proxy)', 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n', 404, /nothing at CONNECT/],
  ];
  for (const [what, bytes, status, message] of cases) checkErrorAnswer(t, what, await raw(port, bytes), status, expected, message);
  const connect = await raw(port, 'CONNECT /plants HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine\r\n\r\n');
  checkErrorAnswer(t, 'CONNECT /plants', connect, 405, expected, /CONNECT is not allowed on \/plants; use GET or POST/);
  t.equal(connect.headers.allow, 'GET, POST', 'with Allow, as any method the path does not serve');
  t.equal(connect.headers['x-request-id'], 'mine');
});

t.test("Fastify's own 413 and 415 carry them too (they come after the hooks)", async (t) => {
  const { port, token, expected } = await listening(t);
  const big = `{"id":1,"name":"${'a'.repeat(20_000)}"}`;
  const head = `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n`;
  checkErrorAnswer(
    t,
    'a body over 16 KiB',
    await raw(port, `${head}Content-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n${big}`),
    413,
    expected,
    /larger than 16384 bytes/,
  );
  checkErrorAnswer(
    t,
    'text/plain',
    await raw(port, `${head}Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi`),
    415,
    expected,
    /application\/json/,
  );
});

t.test('a client too slow with its headers gets 408 in the Error shape with the security headers', async (t) => {
  const { port, expected } = await listening(t);
  checkErrorAnswer(t, 'slow headers', await raw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n'), 408, expected, /too long to arrive/);
});

t.test('HTTP/1.0 without Host is still served (only HTTP/1.1 requires it)', async (t) => {
  const { port } = await listening(t);
  const answer = await raw(port, 'GET /healthz HTTP/1.0\r\n\r\n');
  t.equal(answer.status, 200);
  t.equal(answer.body, '{"status":"ok"}');
});

t.test("the router's refusals: a URL that is not percent-encoded, an id past 100 characters", async (t) => {
  const { port, token, expected } = await listening(t);
  const badUrl = await raw(
    port,
    `DELETE /plants/%E0%A4%A${'x'.repeat(3000)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
  );
  checkErrorAnswer(t, 'a bad percent-encoding', badUrl, 400, expected, /not valid/);
  t.ok(badUrl.body.length < 300, `a short message (${badUrl.body.length} bytes), not the whole URL`);

  const id = '1'.repeat(8000);
  const longId = await raw(port, `DELETE /plants/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
  checkErrorAnswer(t, 'an 8,000-digit id', longId, 400, expected, /id .*too long/i);
  t.ok(longId.body.length < 300, `a short message (${longId.body.length} bytes), not the whole URL`);
  t.notMatch(longId.body, /1{41}/, 'echoes at most a short prefix of the id');
});

t.test('a transfer coding other than chunked is refused with 501, not read as the JSON it hides', async (t) => {
  const { port, token, expected } = await listening(t);
  const zipped = gzipSync('{"id":1,"name":"zipped"}');
  const chunk = (bytes: Buffer) => Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]);
  const head = (coding: string) =>
    `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n`;
  for (const coding of ['gzip, chunked', 'x-whatever, chunked']) {
    const answer = await raw(port, Buffer.concat([Buffer.from(head(coding)), chunk(zipped)]));
    checkErrorAnswer(
      t,
      coding,
      answer,
      501,
      expected,
      new RegExp(`^The body has Transfer-Encoding: ${coding}, which this service does not decode`),
    );
  }
  const plain = await raw(port, Buffer.concat([Buffer.from(head('chunked')), chunk(Buffer.from('{"id":2,"name":"plain"}'))]));
  t.equal(plain.status, 200, 'chunked alone is read as usual');
});
