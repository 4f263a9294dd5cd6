// Swagger UI at /docs (all assets local), in a scope of its own; the documents it reads are operations (routes/contract-documents.ts).
// With a provider configured, its Authorize dialog also signs in there (authorization code + PKCE).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OidcConfig } from '../config.js';
import { docsInitOAuth, signInRedirectPage } from '../auth/oidc/docs-sign-in.js';
import { docsBrand } from './docs-brand.js';
import documentSecurityHeaders from './docs-headers.js';
import { sendError } from '../http/answers.js';

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
      ...docsBrand,
    });
  });
}
