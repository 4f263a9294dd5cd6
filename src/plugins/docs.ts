// Swagger UI at /docs (all assets local; Plant Store's title, logo and tab icon), in a scope of its own; the documents it
// reads are operations (contract/served-contract.ts). With a provider configured, its Authorize dialog also signs in
// there (authorization code + PKCE).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OidcConfig } from '../config.js';
import { docsInitOAuth, signInRedirectPage } from '../auth/oidc/docs-sign-in.js';
import documentSecurityHeaders from './docs-headers.js';
import { sendError } from '../http/answers.js';

const LEAF =
  '<path d="M6 26C6 12 16 5 28 4c0 13-7 23-21 23l-1 1z" fill="#3f8f4f"/><path d="M8 25 22 11" stroke="#e9f5ec" stroke-width="2"/>';
/** The top bar's logo: a leaf and the name, white on Swagger UI's dark bar. */
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="180" height="32" viewBox="0 0 180 32">${LEAF}<text x="38" y="23" font-family="sans-serif" font-size="20" font-weight="bold" fill="#ffffff">Plant Store</text></svg>`;
/** The tab's icon. */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">${LEAF}</svg>`;
export const DOCS_TITLE = 'Plant Store API';

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

export interface DocsOptions {
  /** The contract as Swagger UI shows it (contract/served-contract.ts). */
  document: Record<string, unknown>;
  oidc: OidcConfig | undefined;
}

export default async function docs(app: FastifyInstance, options: DocsOptions) {
  const { oidc } = options;
  await app.register(swagger, { mode: 'static', specification: { document: options.document as never } });
  // Pages for people, unlike every other answer: the scope gets the document set of security headers.
  await app.register(async function swaggerUiScope(ui) {
    ui.setErrorHandler(fileErrors);
    await ui.register(documentSecurityHeaders, { oidc });
    if (oidc !== undefined) await ui.register(signInRedirectPage);
    await ui.register(swaggerUi, {
      routePrefix: '/docs',
      // The document headers cover the UI: it needs only this origin (and the provider's, above).
      staticCSP: false,
      // The contract itself: swagger-ui's own /docs/json is always put in `url`, which `urls` takes precedence over.
      uiConfig: { persistAuthorization: false, tryItOutEnabled: true, urls: [{ url: '/openapi.json', name: 'openapi.json' }] },
      ...(oidc === undefined ? {} : { initOAuth: docsInitOAuth(oidc) }),
      logo: { type: 'image/svg+xml', content: Buffer.from(LOGO), href: '/docs', target: '_self' },
      theme: {
        title: DOCS_TITLE,
        favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(ICON) }],
      },
    });
  });
}
