// Swagger UI at /docs (all assets local; Plant Store's title, logo and tab icon), in a scope of its own with the security
// headers of pages for people; the documents it reads are operations (contract/served-contract.ts). With a provider
// configured, its Authorize dialog also signs in there (authorization code + PKCE, a public client).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OidcConfig } from '../config.js';
import { sendError } from '../http/answers.js';
import { API_SECURITY_HEADERS } from '../http/headers.js';

const LEAF =
  '<path d="M6 26C6 12 16 5 28 4c0 13-7 23-21 23l-1 1z" fill="#3f8f4f"/><path d="M8 25 22 11" stroke="#e9f5ec" stroke-width="2"/>';
/** The top bar's logo: a leaf and the name, white on Swagger UI's dark bar. */
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="180" height="32" viewBox="0 0 180 32">${LEAF}<text x="38" y="23" font-family="sans-serif" font-size="20" font-weight="bold" fill="#ffffff">Plant Store</text></svg>`;
/** The tab's icon. */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">${LEAF}</svg>`;
export const DOCS_TITLE = 'Plant Store API';

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

/** Where the provider sends the browser back to; register it as the docs client's redirect URI. */
export const DOCS_REDIRECT_PATH = '/docs/static/oauth2-redirect.html';

/** Swagger UI's own landing page (its script reads the answer and hands it to the page that opened the popup). */
const REDIRECT_PAGE = '<!doctype html>\n<html lang="en-US">\n<body>\n<script src="oauth2-redirect.js"></script>\n</body>\n</html>\n';

/** The docs' file server (@fastify/send) refuses with http-errors' bare names ("Range Not Satisfiable"), and no code. */
const FILE_MESSAGES: Record<number, string> = {
  400: 'The path is not a file name that can be looked up; see /docs.',
  412: 'The file is not the version If-Match or If-Unmodified-Since names; fetch it again without them.',
  416: 'The range asked for is outside the file; Content-Range gives its length.',
};

/** The file server's refusals as messages that say what to do; any other error goes on to the app's handler (http/answers.ts). */
function fileErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const message = error.code ? undefined : FILE_MESSAGES[error.statusCode ?? 0];
  if (message === undefined) throw error;
  // A 416 says how long the file is (RFC 9110, 15.5.17): the file server gives it with its error.
  const range = (error as { headers?: Record<string, string> }).headers?.['Content-Range'];
  if (error.statusCode === 416 && range !== undefined) reply.header('content-range', range);
  return sendError(reply, error.statusCode!, message);
}

export default async function docs(app: FastifyInstance, options: { document: Record<string, unknown>; oidc: OidcConfig | undefined }) {
  const { oidc } = options;
  await app.register(swagger, { mode: 'static', specification: { document: options.document as never } });
  // Pages for people, unlike every other answer: the scope's answers get the document set in place of the API set.
  await app.register(async function swaggerUiScope(ui) {
    ui.setErrorHandler(fileErrors);
    const headers = oidc === undefined ? DOCUMENT_SECURITY_HEADERS : signInHeaders(oidc);
    ui.addHook('onRequest', (_request, reply, done) => {
      for (const name of API_ONLY) reply.removeHeader(name);
      reply.headers(headers);
      done();
    });
    // The popup's landing page, served here rather than by Swagger UI's static files so that it alone has no
    // opener policy: arriving from the provider's origin, any policy would cut it off from the page that opened it.
    if (oidc !== undefined)
      ui.get(DOCS_REDIRECT_PATH, (_request, reply) =>
        reply.removeHeader('cross-origin-opener-policy').type('text/html; charset=utf-8').send(REDIRECT_PAGE),
      );
    await ui.register(swaggerUi, {
      routePrefix: '/docs',
      // The document headers cover the UI: it needs only this origin (and the provider's, above).
      staticCSP: false,
      // The contract itself: swagger-ui's own /docs/json is always put in `url`, which `urls` takes precedence over.
      uiConfig: { persistAuthorization: false, tryItOutEnabled: true, urls: [{ url: '/openapi.json', name: 'openapi.json' }] },
      ...(oidc === undefined
        ? {}
        : {
            initOAuth: {
              ...(oidc.docsClientId === undefined ? {} : { clientId: oidc.docsClientId }),
              usePkceWithAuthorizationCodeGrant: true,
              scopes: ['openid'],
              // Auth0 issues a JWT for an API only when asked with `audience`; other providers ignore the parameter.
              additionalQueryStringParams: { audience: oidc.audience },
            },
          }),
      logo: { type: 'image/svg+xml', content: Buffer.from(LOGO), href: '/docs', target: '_self' },
      theme: {
        title: DOCS_TITLE,
        favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(ICON) }],
      },
    });
  });
}
