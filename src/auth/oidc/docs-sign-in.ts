// What Swagger UI needs to sign in at the provider: its OAuth settings (authorization code + PKCE, a public
// client) and the popup's landing page (the page headers that let it reach the provider: plugins/docs-headers.ts).
import type { FastifySwaggerInitOAuthOptions } from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { OidcConfig } from '../../config.js';

/** Where the provider sends the browser back to; register it as the docs client's redirect URI. */
export const DOCS_REDIRECT_PATH = '/docs/static/oauth2-redirect.html';

export function docsInitOAuth(oidc: OidcConfig): FastifySwaggerInitOAuthOptions {
  return {
    ...(oidc.docsClientId === undefined ? {} : { clientId: oidc.docsClientId }),
    usePkceWithAuthorizationCodeGrant: true,
    scopes: ['openid'],
    // Auth0 issues a JWT for an API only when asked with `audience`; other providers ignore the parameter.
    additionalQueryStringParams: { audience: oidc.audience },
  };
}

/** Swagger UI's own landing page (its script reads the answer and hands it to the page that opened the popup). */
const REDIRECT_PAGE = '<!doctype html>\n<html lang="en-US">\n<body>\n<script src="oauth2-redirect.js"></script>\n</body>\n</html>\n';

/**
 * The popup's landing page, served here rather than by Swagger UI's static files so that it alone has no
 * opener policy: arriving from the provider's origin, any policy would cut it off from the page that opened it.
 */
export async function signInRedirectPage(scope: FastifyInstance) {
  scope.addHook('onRequest', (_request, reply, done) => {
    reply.removeHeader('cross-origin-opener-policy');
    done();
  });
  scope.get(DOCS_REDIRECT_PATH, (_request, reply) => reply.type('text/html; charset=utf-8').send(REDIRECT_PAGE));
}
