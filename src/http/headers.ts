// The headers: what every answer carries (the request id, the security headers) and what every request must carry
// once (Host, Authorization), in one onRequest hook at the root, so that 404s, 405s, errors and preflights carry them too.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { DuplicateAuthorization, DuplicateHost, MissingHost } from '../errors.js';

/**
 * For answers to programs: OWASP's REST Security Cheat Sheet set for APIs plus helmet's Cross-Origin-Resource-Policy
 * (helmet's headers that steer how a browser runs a page protect nothing there). Written out, as the docs' set is, because
 * @fastify/helmet builds its middleware on every request; test/http/edge.test.ts checks both sets against helmet's.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not helmet's: answers are per user and change with every write, so no cache, private or shared, keeps them.
  'cache-control': 'no-store',
};

/**
 * Printable ASCII, 1 to 128 characters: anything else could smuggle text into logs or headers. Not a token
 * sent in the wrong header (pst_, or a JWT's eyJ): it would be logged and echoed.
 */
const USABLE = /^(?!pst_|eyJ)[\x20-\x7e]{1,128}$/;

/**
 * Fastify's genReqId (its requestIdHeader is off, because Fastify would take any value as it is): the client's
 * X-Request-Id when it is a usable one, else a new UUID. Every answer and the request's log lines carry it.
 */
export function requestIdOf(request: Pick<IncomingMessage, 'headers'>): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && USABLE.test(sent) ? sent : randomUUID();
}

/** The refusal of the first of Host and Authorization named twice in a request's raw header list (name, value, name, value...). */
function repeated(raw: string[]): Error | undefined {
  let hosts = 0;
  let authorizations = 0;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!;
    if (name.length === 4 && name.toLowerCase() === 'host' && ++hosts > 1) return new DuplicateHost();
    if (name.length === 13 && name.toLowerCase() === 'authorization' && ++authorizations > 1) return new DuplicateAuthorization();
  }
  return undefined;
}

export default fp(
  async function headers(app: FastifyInstance) {
    app.addHook('onRequest', (request, reply, done) => {
      reply.headers(API_SECURITY_HEADERS).header('x-request-id', request.id);
      // HTTP/1.1 requires exactly one Host (RFC 9112, 3.2). Node's own check (requireHostHeader, off in app.ts)
      // answers 400 with an empty body; here it is an error like any other, with the headers above.
      if (request.headers.host === undefined && request.raw.httpVersion === '1.1') return done(new MissingHost());
      // Node keeps only the first of two Host or Authorization headers in request.headers: the raw list shows
      // the second. Two credentials are refused rather than the first taken: a proxy in front may check the other.
      done(repeated(request.raw.rawHeaders));
    });
  },
  { name: 'headers' },
);
