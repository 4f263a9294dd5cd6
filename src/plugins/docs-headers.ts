// The docs pages' security headers (Swagger UI: pages for people): helmet's full set in place of the API's and,
// with sign-in at a provider, what lets a page reach the provider and keep its popup.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { OidcConfig } from '../config.js';
import { API_SECURITY_HEADERS } from '../http/headers.js';

/**
 * Helmet's full set, with a content security policy that allows only this origin's scripts and styles; written
 * out as the API set is (http/headers.ts), and checked against helmet the same way.
 */
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
 * With sign-in: the page may fetch the provider's discovery document and token endpoint (connect-src), and keeps
 * a handle on the sign-in popup it opens (COOP same-origin-allow-popups).
 */
function signInHeaders(oidc: OidcConfig): Readonly<Record<string, string>> {
  const provider = new URL(oidc.issuer).origin;
  return {
    ...DOCUMENT_SECURITY_HEADERS,
    'content-security-policy': DOCUMENT_SECURITY_HEADERS['content-security-policy']!.replace(
      "connect-src 'self'",
      `connect-src 'self' ${provider}`,
    ),
    'cross-origin-opener-policy': 'same-origin-allow-popups',
  };
}

/**
 * Registered inside the docs scope: its responses get the document set in place of the API set it inherits.
 * (fastify-plugin puts the hook in the scope that registers this plugin, which encapsulates it from the rest of the app.)
 */
export default fp(
  async function documentSecurityHeaders(scope: FastifyInstance, options: { oidc: OidcConfig | undefined }) {
    const headers = options.oidc === undefined ? DOCUMENT_SECURITY_HEADERS : signInHeaders(options.oidc);
    scope.addHook('onRequest', (_request, reply, done) => {
      for (const name of API_ONLY) reply.removeHeader(name);
      reply.headers(headers);
      done();
    });
  },
  { name: 'document-security-headers', dependencies: ['headers'] },
);
