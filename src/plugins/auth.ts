// Bearer authentication for the scope it is registered in: hashed token lookup through the
// request's store handle, RFC 6750 challenges, and a per-address limit on failures.
import bearerAuth from '@fastify/bearer-auth';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hashToken, looksLikeToken } from '../auth/tokens.js';
import { FailureLimiter } from '../auth/failure-limiter.js';
import { authFailures, rateLimited } from '../observability/channels.js';
import { InvalidAccessToken, InvalidToken, MissingToken, TooManyAuthFailures } from '../errors.js';
import type { OidcConfig } from '../auth/oidc/oidc-config.js';
import { ProviderTokens, looksLikeJwt } from '../auth/oidc/provider-tokens.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The user whose token authenticated this request. */
    user: string;
    tokenId: number;
    /** Why a provider access token was refused (the challenge's error_description); empty otherwise. */
    accessTokenProblem: string;
  }
}

/** The tokenId of a request authenticated by a provider access token, which has no row in the token store. */
export const PROVIDER_TOKEN_ID = 0;

const CHALLENGE = 'Bearer realm="plant-store"';

/** A token was sent in the Bearer scheme, even if it is malformed. */
const SENT_BEARER_TOKEN = /^bearer[ \t]+\S/i;

export default fp(
  async function auth(app: FastifyInstance, options: { authFailuresPerMinute: number; oidc?: OidcConfig | undefined }) {
    const failures = new FailureLimiter(options.authFailuresPerMinute);
    const providerTokens = options.oidc === undefined ? undefined : new ProviderTokens(options.oidc, app.log);
    app.decorateRequest('user', '');
    app.decorateRequest('tokenId', 0);
    app.decorateRequest('accessTokenProblem', '');

    await app.register(bearerAuth, {
      keys: new Set<string>(), // unused: `auth` looks tokens up by hash
      addHook: false,
      specCompliance: 'rfc6749', // the scheme name is case-insensitive
      verifyErrorLogLevel: 'info' as const,
      // Unknown and revoked tokens resolve false; a store fault rejects, and is answered as one (below).
      async auth(key: string, request: FastifyRequest): Promise<boolean> {
        // pst_ tokens first, untouched; a provider's JWT only when one is configured.
        if (!looksLikeToken(key)) return providerTokens !== undefined && looksLikeJwt(key) && (await providerToken(providerTokens, key, request));
        const owner = await request.store.findToken(hashToken(key));
        if (owner === undefined) return false;
        request.user = owner.user;
        request.tokenId = owner.tokenId;
        return true;
      },
    });

    app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
      const wait = failures.blockedFor(request.ip);
      if (wait > 0) {
        reply.header('retry-after', wait);
        if (rateLimited.hasSubscribers) rateLimited.publish({ limit: 'auth-failures' });
        return done(new TooManyAuthFailures(wait));
      }
      app.verifyBearerAuth!(request, reply, (error?: Error & { code?: string }) => {
        if (error === undefined) return done();
        // bearer-auth's own failures have FST_BEARER_AUTH_ codes; anything else is a store fault (which
        // has a code of its own too, e.g. ECONNREFUSED or SQLITE_BUSY) or an unreachable identity provider
        // (a 503): not a failed authentication.
        if (!error.code?.startsWith('FST_BEARER_AUTH_')) return done(error);
        failures.recordFailure(request.ip);
        const sentToken = SENT_BEARER_TOKEN.test(request.headers.authorization ?? '');
        if (authFailures.hasSubscribers) authFailures.publish({ reason: sentToken ? 'invalid' : 'missing' });
        const problem = request.accessTokenProblem;
        if (problem !== '') {
          reply.header('www-authenticate', `${CHALLENGE}, error="invalid_token", error_description="${problem}"`);
          return done(new InvalidAccessToken());
        }
        reply.header('www-authenticate', sentToken ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE);
        done(sentToken ? new InvalidToken() : new MissingToken());
      });
    });
  },
  { name: 'auth', dependencies: ['store'] },
);

/** Authenticates the request as the provider user the token names; a 503 when the provider cannot be reached rejects. */
async function providerToken(providerTokens: ProviderTokens, token: string, request: FastifyRequest): Promise<boolean> {
  const verdict = await providerTokens.verify(token);
  if ('problem' in verdict) {
    request.accessTokenProblem = verdict.problem;
    return false;
  }
  request.user = verdict.owner;
  request.tokenId = PROVIDER_TOKEN_ID;
  return true;
}
