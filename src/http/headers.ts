// Security headers by scope: the API set on every response, the document set in the docs scope (plugins/docs.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

// Both sets are helmet's, written out rather than computed: @fastify/helmet builds helmet's
// middleware (parsing the policy) on every request, a tenth of the cost of a small GET, for headers
// that depend on nothing in the request. test/plugins/security-headers.test.ts checks each set
// against what helmet sets.

/**
 * For answers to programs: OWASP's REST Security Cheat Sheet set for APIs plus helmet's
 * Cross-Origin-Resource-Policy. Helmet's headers that only steer how a browser runs a page
 * (referrer, DNS prefetch, opener, XSS filter...) protect nothing there, and each header costs
 * about 0.5 us per response.
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

/** For Swagger UI's pages: helmet's full set, with a content security policy that allows only this origin's scripts and styles. */
export const DOCUMENT_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';script-src 'self';style-src 'self' 'unsafe-inline';img-src 'self' data:;font-src 'self' data:;connect-src 'self';object-src 'none';frame-ancestors 'none';form-action 'self'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

/** API headers the document set has no value for: the docs scope removes them. */
const API_ONLY = Object.keys(API_SECURITY_HEADERS).filter((name) => !(name in DOCUMENT_SECURITY_HEADERS));

/**
 * The API set on every response. Registered at the root, so that the answers no route of ours
 * makes carry it too: framework 404s and 405s, errors, CORS preflights.
 */
export default fp(
  async function securityHeaders(app: FastifyInstance) {
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(API_SECURITY_HEADERS);
      done();
    });
  },
  { name: 'security-headers' },
);

/**
 * Registered inside a scope that serves pages to people: that scope's responses get the document
 * set in place of the API set it inherits. (fastify-plugin puts the hook in the scope that
 * registers this plugin, which encapsulates it from the rest of the app.)
 */
export const documentSecurityHeaders = fp(
  async function documentSecurityHeaders(scope: FastifyInstance, options: { headers?: Readonly<Record<string, string>> }) {
    const headers = options.headers ?? DOCUMENT_SECURITY_HEADERS;
    scope.addHook('onRequest', (_request, reply, done) => {
      for (const name of API_ONLY) reply.removeHeader(name);
      reply.headers(headers);
      done();
    });
  },
  { name: 'document-security-headers', dependencies: ['security-headers'] },
);
