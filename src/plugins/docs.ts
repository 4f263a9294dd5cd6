// Swagger UI at /docs (all assets local), in a scope of its own; the documents it reads are operations (routes/contract-documents.ts).
// With a provider configured, its Authorize dialog also signs in there (authorization code + PKCE).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { OidcConfig } from '../config.js';
import { docsInitOAuth, signInDocumentHeaders, signInRedirectPage } from '../auth/oidc/docs-sign-in.js';
import { docsBrand } from './docs-brand.js';
import { documentSecurityHeaders } from '../http/headers.js';

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
    await ui.register(documentSecurityHeaders, oidc === undefined ? {} : { headers: signInDocumentHeaders(oidc) });
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
