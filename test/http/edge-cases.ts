// The HTTP edge's cases as one table: how each request is sent (app.inject, raw socket bytes, pipelined bytes) and what must come back.
import { gzipSync } from 'node:zlib';
import type { InjectOptions } from 'fastify';

/** Stands for alice's token in any row; the runner puts the real one in before sending. */
export const TOKEN = '<token>';

/** A version 4 UUID, as the service makes request ids. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** @fastify/helmet's headers that only steer how a browser runs a page: never on an API answer. */
export const DOCUMENT_ONLY = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

export type Send =
  /** Through app.inject, the answer checked against openapi.yaml. */
  | { inject: InjectOptions }
  /** Bytes on a new socket; the first whole answer, or what came before the server closed. */
  | { raw: string | Buffer }
  /** Every request written at once on one connection; the row's checks are of the last answer. */
  | { pipelined: string[] };

export interface EdgeCase {
  name: string;
  send: Send;
  status: number;
  /** The Error shape (JSON, exactly error and message, error the status) with this message, and the security headers. */
  message?: RegExp;
  /**
   * The security headers: the API's (and none meant for pages), or the docs' full set. With a message the
   * API's are checked unless the row says otherwise.
   */
  security?: 'api' | 'docs';
  /** Header values (names in lower case): a string is exact, a pattern (or each of several) matched, undefined absent. */
  headers?: Record<string, string | RegExp | RegExp[] | undefined>;
  /** Header values that must not be: a string is not equal, a pattern not matched; with why. */
  headersNot?: Record<string, [string | RegExp, string]>;
  /** The body: a string is exact, a pattern matched. */
  body?: string | RegExp;
  /** Patterns the body must not match, with why. */
  bodyNot?: Array<[RegExp, string]>;
  /** The body is shorter than this many bytes (a short message, not an echo of the URL). */
  shorterThan?: number;
  /** Pipelined rows: the status of every answer, in order. */
  statuses?: number[];
  /** Pipelined rows: the exact body of earlier answers, by index. */
  earlier?: Record<number, string>;
  /** Raw rows: the body is the contract's Error shape (openapi.yaml's Error schema). */
  contract?: true;
  /** The store (every user's plants, the tokens but for their last use) is the same after the row as before it. */
  storeUnchanged?: true;
  /** Patterns the raw answer text must match (raw rows). */
  text?: RegExp[];
  /** The messages of the log lines with this request id, in order; `{message}` stands for the answer's own message. */
  logged?: { id: string; messages: string[] };
}

const auth = `Authorization: Bearer ${TOKEN}\r\n`;
const zipped = gzipSync('{"id":1,"name":"zipped"}');
const chunk = (bytes: Buffer) => Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]);
const codedPost = (coding: string, bytes: Buffer) =>
  Buffer.concat([
    Buffer.from(
      `POST /plants HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n`,
    ),
    chunk(bytes),
  ]);
const authorized = { authorization: `Bearer ${TOKEN}` };
const json = { ...authorized, 'content-type': 'application/json' };
const plain = '{"id":1,"name":"cafe"}';
/** One pipelined request as alice, with a JSON body if given. */
const piped = (method: string, path: string, body?: string) =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\n${auth}` +
  (body === undefined ? '\r\n' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
const smuggled = '{"id":5,"name":"smuggled"}';
const big = `{"id":1,"name":"${'a'.repeat(20_000)}"}`;
const closingPost = `POST /plants HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n`;
const refusedBody = (id: string) => `POST /plants HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nX-Request-Id: ${id}\r\n`;

/**
 * Answers from Node's HTTP layer and from Fastify's router, which come before any hook of ours, and the
 * request id every answer carries.
 * Order matters once: the rows that store a plant come after the check that nothing was stored.
 */
export const edgeCases: EdgeCase[] = [
  // Node's own refusals.
  { name: 'no Host header', send: { raw: 'GET /healthz HTTP/1.1\r\n\r\n' }, status: 400, message: /Host header/ },
  {
    name: 'two Host headers',
    send: { raw: 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n' },
    status: 400,
    message: /more than one Host header/,
  },
  {
    name: 'two Host headers on a plant operation',
    send: { raw: `GET /plants HTTP/1.1\r\nHost: a\r\nhost: a\r\n${auth}\r\n` },
    status: 400,
    message: /more than one Host header/,
  },
  {
    name: 'no Host header on a plant operation',
    send: { raw: `GET /plants HTTP/1.1\r\n${auth}\r\n` },
    status: 400,
    message: /Host header/,
  },
  {
    name: 'Expect: foo',
    send: { raw: 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n' },
    status: 417,
    message: /Expect header "foo"/,
  },
  {
    name: 'headers over 16 KiB',
    send: { raw: `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n` },
    status: 431,
    message: /larger than 16 KiB/,
  },
  // Node keeps the first of two; a proxy in front may have checked the other.
  {
    name: 'a valid token, then another Authorization',
    send: { raw: `GET /plants HTTP/1.1\r\nHost: x\r\n${auth}authorization: Bearer pst_other\r\n\r\n` },
    status: 400,
    message: /more than one Authorization header/,
  },
  {
    name: 'another Authorization, then a valid token',
    send: { raw: `GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Basic eDp5\r\n${auth}\r\n` },
    status: 400,
    message: /more than one Authorization header/,
  },
  { name: 'text that is not HTTP', send: { raw: 'HELLO THERE\r\n\r\n' }, status: 400, message: /not valid HTTP/ },
  {
    name: 'a header line without a colon',
    send: { raw: 'GET /healthz HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n' },
    status: 400,
    message: /not valid HTTP/,
  },
  {
    name: 'CONNECT to a host (this is no proxy)',
    send: { raw: 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n' },
    status: 404,
    message: /nothing at CONNECT/,
  },
  {
    name: 'CONNECT /plants: 405 with Allow, as any method the path does not serve, and the request id',
    send: { raw: 'CONNECT /plants HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine\r\n\r\n' },
    status: 405,
    message: /CONNECT is not allowed on \/plants; use GET or POST/,
    headers: { allow: 'GET, POST', 'x-request-id': 'mine' },
  },
  // Fastify's own 413 and 415 carry the security headers too (they come after the hooks).
  {
    name: 'a body over 16 KiB',
    send: { raw: `${closingPost}Content-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n${big}` },
    status: 413,
    message: /larger than 16384 bytes/,
  },
  {
    name: 'text/plain',
    send: { raw: `${closingPost}Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi` },
    status: 415,
    message: /application\/json/,
  },
  {
    name: 'a client too slow with its headers',
    send: { raw: 'GET /healthz HTTP/1.1\r\nHost: x\r\n' },
    status: 408,
    message: /too long to arrive/,
  },
  {
    name: 'HTTP/1.0 without Host is still served (only HTTP/1.1 requires it)',
    send: { raw: 'GET /healthz HTTP/1.0\r\n\r\n' },
    status: 200,
    body: '{"status":"ok"}',
  },
  // The router's refusals: a URL that is not percent-encoded, an id past 100 characters.
  {
    name: 'a bad percent-encoding',
    send: { raw: `DELETE /plants/%E0%A4%A${'x'.repeat(3000)} HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n` },
    status: 400,
    message: /not valid/,
    shorterThan: 300,
  },
  {
    name: 'an 8,000-digit id',
    send: { raw: `DELETE /plants/${'1'.repeat(8000)} HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n` },
    status: 400,
    message: /id .*too long/i,
    shorterThan: 300,
    bodyNot: [[/1{41}/, 'echoes at most a short prefix of the id']],
  },
  // A transfer coding other than chunked is refused with 501, not read as the JSON it hides.
  ...['gzip, chunked', 'x-whatever, chunked'].map((coding): EdgeCase => ({
    name: `Transfer-Encoding: ${coding}`,
    send: { raw: codedPost(coding, zipped) },
    status: 501,
    message: new RegExp(`^The body has Transfer-Encoding: ${coding}, which this service does not decode`),
  })),

  // Request ids: every answer carries one, and the log lines of its request too.
  {
    name: "the client's id comes back, and the log lines of that request carry it",
    send: { inject: { url: '/plants', headers: { authorization: `Bearer ${TOKEN}`, 'x-request-id': 'from-the-client' } } },
    status: 200,
    headers: { 'x-request-id': 'from-the-client' },
    logged: { id: 'from-the-client', messages: ['incoming request', 'request completed'] },
  },
  ...(
    [
      ['no token', { url: '/plants' }, 401],
      ['a bad limit', { url: '/plants?limit=0', headers: { authorization: `Bearer ${TOKEN}` } }, 400],
      ['a delete of nothing', { method: 'DELETE', url: '/plants/1', headers: { authorization: `Bearer ${TOKEN}` } }, 404],
      ["the router's 404", { url: '/nowhere' }, 404],
      ['a method the path does not serve', { method: 'PUT', url: '/plants' }, 405],
      ['the health check', { url: '/healthz' }, 200],
      ['the docs', { url: '/docs/' }, 200],
    ] as const
  ).map(([what, inject, status]): EdgeCase => ({ name: `${what}: a new id`, send: { inject }, status, headers: { 'x-request-id': UUID } })),
  // Answers made before Fastify has a request carry an id too: Node's 400 and the 417.
  {
    name: "Node's 400 carries a new id",
    send: { raw: 'NOT HTTP AT ALL\r\n\r\n' },
    status: 400,
    text: [/^HTTP\/1.1 400 /],
    headers: { 'x-request-id': /^[0-9a-f-]{36}$/ },
  },
  {
    name: "the 417 carries the client's id, as Node had read the headers",
    send: {
      raw: 'POST /plants HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine\r\nExpect: teapot\r\nContent-Length: 2\r\nConnection: close\r\n\r\n',
    },
    status: 417,
    text: [/^HTTP\/1.1 417 /],
    headers: { 'x-request-id': 'mine' },
  },
  // A body Node refuses midway, after Fastify had begun the request (its headers were read): before, the answer
  // carried a new id and the log only the request's "incoming request" line.
  ...(
    [
      ['bad-chunk-size', 'Transfer-Encoding: chunked\r\n\r\nzz\r\n'],
      ['chunk-too-long', 'Transfer-Encoding: chunked\r\n\r\n2\r\n{"id":1}\r\n0\r\n\r\n'],
    ] as const
  ).map(([id, rest]): EdgeCase => ({
    name: `a body Node refuses midway (${id}): the answer keeps the request id, and the log says how it ended`,
    send: { raw: refusedBody(id) + rest },
    status: 400,
    text: [/^HTTP\/1.1 400 /],
    headers: { 'x-request-id': id },
    logged: { id, messages: ['incoming request', 'request refused: The request is not valid HTTP.'] },
  })),
  {
    name: 'nothing of the refused bodies was stored',
    send: { inject: { url: '/plants', headers: { authorization: `Bearer ${TOKEN}` } } },
    status: 200,
    body: '[]',
  },
  // The router's refusals come before any hook, and Fastify logs no "request completed" for them.
  {
    name: 'a URL the router refuses: its log ends with the refusal',
    send: { inject: { url: '/plants/%zz', headers: { 'x-request-id': 'bad-url' } } },
    status: 400,
    logged: { id: 'bad-url', messages: ['incoming request', 'request refused: {message}'] },
  },

  // Unknown paths are 404 and wrong methods 405 with Allow, in the Error shape.
  {
    name: 'an unknown path',
    send: { inject: { url: '/nothing-here' } },
    status: 404,
    message: /nothing at GET \/nothing-here/,
  },
  { name: 'a wrong method on the list', send: { inject: { method: 'PUT', url: '/plants' } }, status: 405, headers: { allow: 'GET, POST' } },
  { name: 'a wrong method on a plant', send: { inject: { method: 'PATCH', url: '/plants/5' } }, status: 405, headers: { allow: 'DELETE' } },
  { name: 'no undocumented HEAD routes', send: { inject: { method: 'HEAD', url: '/plants' } }, status: 405 },
  // Fastify refuses a QUERY without Content-Type (RFC 10008) before routing; no route here serves QUERY.
  {
    name: 'QUERY without Content-Type: 405, like any method the path does not serve',
    send: { inject: { method: 'QUERY', url: '/plants' } },
    status: 405,
    headers: { allow: 'GET, POST' },
  },
  { name: 'QUERY on an unknown path', send: { inject: { method: 'QUERY', url: '/nothing-here' } }, status: 404 },
  { name: 'the list with a trailing slash', send: { inject: { url: '/plants/' } }, status: 404 },
  {
    name: '/docs/ is served (GET, HEAD) as /docs is: another method is 405',
    send: { inject: { method: 'POST', url: '/docs/' } },
    status: 405,
    headers: { allow: 'GET, HEAD' },
  },
  // The docs' file server's own refusals: the Error shape, a message that says what to do (416: a check beside the table).
  {
    name: 'a file changed since the client had it',
    send: { inject: { url: '/docs/static/index.css', headers: { 'if-match': '"x"' } } },
    status: 412,
    message: /fetch it again/,
    security: 'docs',
  },
  { name: 'not a file name', send: { inject: { url: '/docs/static/a%00b' } }, status: 400, message: /not a file name/, security: 'docs' },
  {
    name: 'a missing file under a route of its method is 404, not 405',
    send: { inject: { url: '/docs/static/nothing.js' } },
    status: 404,
    headers: { allow: undefined },
  },
  // Sent as it is (inject, like most clients, would resolve the dots): the docs' file server refuses it.
  {
    name: 'a path that climbs out of the docs folder is 404, as nothing is there',
    send: { pipelined: ['GET /docs/static/../../openapi.yaml HTTP/1.1\r\nHost: x\r\n\r\n'] },
    status: 404,
    body: /^\{"error":404,"message":"There is nothing at GET \/docs\/static\/\.\.\/\.\.\/openapi\.yaml/,
  },
  { name: 'a URL not percent-encoded, through inject', send: { inject: { url: '/plants/%E0%A4%A' } }, status: 400 },

  // Every API answer carries the API's security headers and no header meant for pages; these store and delete plant 1.
  ...(
    [
      ['a list', { url: '/plants?limit=20', headers: { authorization: `Bearer ${TOKEN}` } }, 200],
      ['a list from the cache', { url: '/plants?limit=20', headers: { authorization: `Bearer ${TOKEN}` } }, 200],
      [
        'a create',
        { method: 'POST', url: '/plants', headers: { authorization: `Bearer ${TOKEN}` }, payload: { id: 1, name: 'fern' } },
        200,
      ],
      [
        'a body that is not JSON',
        { method: 'POST', url: '/plants', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, payload: '{' },
        400,
      ],
      ['no token', { url: '/plants' }, 401],
      ['a delete of nothing', { method: 'DELETE', url: '/plants/2', headers: { authorization: `Bearer ${TOKEN}` } }, 404],
      ['a delete', { method: 'DELETE', url: '/plants/1', headers: { authorization: `Bearer ${TOKEN}` } }, 204],
      ["the router's 404", { url: '/nowhere' }, 404],
      ['the health check', { url: '/healthz' }, 200],
      ['the contract', { url: '/openapi.json' }, 200],
      ['a path not under /docs', { url: '/docsx' }, 404],
      // Answers no route of ours makes carry the API set too (the 500: a check beside the table, as it breaks the store).
      ['a 405', { method: 'PUT', url: '/plants', headers: { authorization: `Bearer ${TOKEN}` } }, 405],
      [
        'a CORS preflight',
        {
          method: 'OPTIONS',
          url: '/plants',
          headers: {
            origin: 'https://app.example.com',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization',
          },
        },
        204,
      ],
      ['a missing file under /docs', { url: '/docs/nothing-here.json' }, 404],
    ] as const
  ).map(([what, inject, status]): EdgeCase => ({ name: `${what}: the API's security headers`, send: { inject }, status, security: 'api' })),
  // The docs page and its assets carry the document headers, not the API ones, and may be cached.
  ...(
    [
      ['the docs page', '/docs/', 200],
      ['a docs script', '/docs/static/swagger-ui-bundle.js', 200],
      ['the bare /docs', '/docs', 200],
    ] as const
  ).map(([what, url, status]): EdgeCase => ({
    name: `${what}: the document headers`,
    send: { inject: { url } },
    status,
    security: 'docs',
    headersNot: { 'cache-control': ['no-store', 'the UI may be cached'] },
  })),
  // The content security policy is strict on API responses and on the docs page.
  {
    name: "an API answer's content security policy",
    send: { inject: { url: '/plants' } },
    status: 401,
    headers: { 'content-security-policy': "default-src 'none';frame-ancestors 'none'" },
  },
  {
    name: "the docs page's content security policy: no inline or remote scripts",
    send: { inject: { url: '/docs/' } },
    status: 200,
    headers: { 'content-security-policy': [/default-src 'self'/, /script-src 'self'(;|$)/, /frame-ancestors 'none'/] },
    headersNot: { 'content-security-policy': [/https?:/, 'no remote origins'] },
  },

  // Framing. A compressed body answers 415 with Accept-Encoding: identity and stores nothing.
  ...(
    [
      ['gzip', gzipSync(plain)],
      ['GZIP', gzipSync(plain)],
      ['br', plain], // not even compressed: the header alone is refused, as the bytes cannot be trusted to be what it says
      ['deflate, gzip', plain],
    ] as const
  ).map(([encoding, payload]): EdgeCase => ({
    name: `Content-Encoding: ${encoding}`,
    send: { inject: { method: 'POST', url: '/plants', headers: { ...json, 'content-encoding': encoding }, payload } },
    status: 415,
    headers: { 'accept-encoding': 'identity' },
    message: new RegExp(`^The body has Content-Encoding: ${encoding.toLowerCase()}, .*send it uncompressed`),
  })),
  {
    name: 'nothing of the compressed bodies was stored',
    send: { inject: { url: '/plants', headers: authorized } },
    status: 200,
    body: '[]',
  },
  {
    name: 'Content-Encoding: identity is no coding at all',
    send: { inject: { method: 'POST', url: '/plants', headers: { ...json, 'content-encoding': 'identity' }, payload: plain } },
    status: 200,
    headers: { 'accept-encoding': undefined },
  },
  {
    name: '(the identity-coded plant deleted, for the rows below)',
    send: { inject: { method: 'DELETE', url: '/plants/1', headers: authorized } },
    status: 204,
  },
  // A message with no content: its Content-Type describes nothing, and a DELETE goes ahead.
  ...[1, 2, 3, 4].map((id): EdgeCase => ({
    name: `plant ${id} created`,
    send: { inject: { method: 'POST', url: '/plants', headers: authorized, payload: { id, name: `plant ${id}` } } },
    status: 200,
  })),
  // What fetch(url, { method: 'DELETE', body: '' }) sends; new URLSearchParams() as the body is the second.
  ...(
    [
      [1, 'text/plain;charset=UTF-8'],
      [2, 'application/x-www-form-urlencoded;charset=UTF-8'],
    ] as const
  ).map(([id, type]): EdgeCase => ({
    name: `DELETE with ${type} and no content: 204`,
    send: { inject: { method: 'DELETE', url: `/plants/${id}`, headers: { ...authorized, 'content-type': type, 'content-length': '0' } } },
    status: 204,
  })),
  // Node's fetch sends that DELETE with neither Content-Length nor Transfer-Encoding: no body either (RFC 9112, 6.3).
  {
    name: 'DELETE with text/plain and no framing: 204',
    send: { inject: { method: 'DELETE', url: '/plants/4', headers: { ...authorized, 'content-type': 'text/plain' } } },
    status: 204,
  },
  {
    name: 'a DELETE with a text body is still refused',
    send: { inject: { method: 'DELETE', url: '/plants/3', headers: { ...authorized, 'content-type': 'text/plain' }, payload: 'please' } },
    status: 415,
  },
  { name: 'and changed nothing', send: { inject: { url: '/plants', headers: authorized } }, status: 200, body: '[{"name":"plant 3"}]' },
  {
    name: 'a POST, which needs a body, is refused: 415',
    send: { inject: { method: 'POST', url: '/plants', headers: { ...authorized, 'content-type': 'text/plain', 'content-length': '0' } } },
    status: 415,
    message: /^Send the body as application\/json, not text\/plain\.$/,
  },
  {
    name: 'a path no route serves is 404 whatever the body',
    send: { inject: { method: 'POST', url: '/nothing', headers: { 'content-type': 'text/plain' }, payload: 'x' } },
    status: 404,
  },
  {
    name: 'a body without Content-Type',
    send: { inject: { method: 'POST', url: '/plants', headers: authorized, payload: Buffer.from('{"id":9,"name":"x"}') } },
    status: 415,
    message: /^Send the body as application\/json, and say so in Content-Type\.$/,
  },

  {
    name: '(plant 3 deleted, for the pipelined rows below)',
    send: { inject: { method: 'DELETE', url: '/plants/3', headers: authorized } },
    status: 204,
  },
  // Requests pipelined on one connection are answered as if handled one after the other: a write is visible to the
  // next request on the same connection (RFC 9112, 9.3.2 allows parallel handling only when every request is safe).
  {
    name: 'a DELETE pipelined after the POST of the same plant finds it; a POST after the DELETE creates it again',
    send: {
      pipelined: [
        piped('POST', '/plants', '{"id":7,"name":"a"}'),
        piped('DELETE', '/plants/7'),
        piped('POST', '/plants', '{"id":7,"name":"b"}'),
        piped('GET', '/plants'),
      ],
    },
    statuses: [200, 204, 200, 200],
    status: 200,
    body: '[{"name":"b"}]',
  },
  { name: '(plant 7 deleted)', send: { inject: { method: 'DELETE', url: '/plants/7', headers: authorized } }, status: 204 },
  {
    name: 'bytes that are not HTTP after pipelined requests: their answers go first, then the 400, and their writes stand',
    send: {
      pipelined: [
        piped('POST', '/plants', '{"id":1,"name":"a"}'),
        piped('DELETE', '/plants/1'),
        piped('POST', '/plants', '{"id":2,"name":"b"}'),
        piped('GET', '/plants'),
        'NOT HTTP\r\n\r\n',
      ],
    },
    statuses: [200, 204, 200, 200, 400],
    earlier: { 3: '[{"name":"b"}]' },
    status: 400,
    body: /not valid HTTP/,
    headers: { connection: 'close' },
  },
  { name: '(plant 2 deleted)', send: { inject: { method: 'DELETE', url: '/plants/2', headers: authorized } }, status: 204 },
  { name: 'plant 3 created', send: { pipelined: [piped('POST', '/plants', '{"id":3,"name":"c"}')] }, status: 200 },
  {
    name: 'a DELETE followed by a body it does not frame (as http.request writes one): 204, then 400 for the body',
    send: { pipelined: [piped('DELETE', '/plants/3'), '{"x":1}'] },
    statuses: [204, 400],
    status: 400,
  },
  { name: 'the 204 said the plant is gone', send: { pipelined: [piped('GET', '/plants')] }, status: 200, body: '[]' },
  {
    name: 'a URL the router refuses, pipelined among writes, lets no request behind it overtake one before it',
    send: {
      pipelined: [
        piped('POST', '/plants', '{"id":4,"name":"d"}'),
        piped('GET', '/plants/%zz'),
        piped('POST', '/plants', '{"id":5,"name":"e"}'),
        piped('GET', '/plants'),
      ],
    },
    statuses: [200, 400, 200, 200],
    status: 200,
    body: '[{"name":"d"},{"name":"e"}]',
  },
  { name: '(plant 4 deleted)', send: { inject: { method: 'DELETE', url: '/plants/4', headers: authorized } }, status: 204 },
  { name: '(plant 5 deleted)', send: { inject: { method: 'DELETE', url: '/plants/5', headers: authorized } }, status: 204 },

  // Hostile bytes over real HTTP: oversized headers, broken HTTP and request smuggling change nothing.
  ...(
    [
      ['headers over 16 KiB', `GET /plants HTTP/1.1\r\nHost: x\r\n${auth}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      ['not HTTP at all', 'HELLO THERE\r\n\r\n', 400],
      ['a header without a colon', 'GET /plants HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n', 400],
      [
        'Content-Length and Transfer-Encoding together',
        `POST /plants HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n${smuggled.length.toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`,
        400,
      ],
      [
        'two Content-Length headers',
        `POST /plants HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${smuggled.length}\r\nContent-Length: 3\r\n\r\n${smuggled}`,
        400,
      ],
    ] as const
  ).map(([what, bytes, status]): EdgeCase => ({
    name: `hostile: ${what}`,
    send: { raw: bytes },
    status,
    text: [new RegExp(`^HTTP/1.1 ${status} `), /content-type: application\/json/i],
    contract: true,
    storeUnchanged: true,
  })),

  // Rows that store a plant: after the check that nothing was stored.
  {
    name: 'Transfer-Encoding: chunked alone is read as usual',
    send: { raw: codedPost('chunked', Buffer.from('{"id":2,"name":"plain"}')) },
    status: 200,
  },
];
