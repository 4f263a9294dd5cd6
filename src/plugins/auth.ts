// Bearer authentication for the scope it is registered in: hashed token lookup through the
// request's store handle, RFC 6750 challenges, and a per-address limit on failures (per instance,
// or shared by all through Redis).
import bearerAuth from '@fastify/bearer-auth';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hashToken, TOKEN } from '../auth/tokens.js';
import { FailureLimit } from '../auth/failure-limiter.js';
import { authFailures, rateLimited } from '../channels.js';
import { inSeconds, InvalidAccessToken, InvalidToken, MissingToken, TooManyAuthFailures } from '../errors.js';
import { limitFields } from '../limits/ratelimit-fields.js';
import type { OidcConfig } from '../config.js';
import type { ProviderTokens } from '../auth/oidc/provider-tokens.js';

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
    // With REDIS_URL the count is shared by every instance (plugins/shared-limits.ts).
    const failures = new FailureLimit(options.authFailuresPerMinute, app.sharedCounters);
    // Only its 429 names this limit (RateLimit-Policy and RateLimit, with r=0): a 401 does not say how many
    // tries are left, which would tell a guesser how fast to go (draft-ietf-httpapi-ratelimit-headers-11,
    // section 8.2), and a client that fails to authenticate has a token to fix, not a pace to keep.
    const writeLimit = limitFields('auth-failures', options.authFailuresPerMinute, 60);
    // jose (about 15 MB) is imported only when an identity provider is configured.
    let providerTokens: ProviderTokens | undefined;
    if (options.oidc !== undefined)
      providerTokens = new (await import('../auth/oidc/provider-tokens.js')).ProviderTokens(options.oidc, app.log);
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
        // pst_ tokens first, untouched; a provider's JWT only when one is configured (a 503 when it cannot be reached rejects).
        let owner: { user: string; tokenId: number } | undefined;
        if (TOKEN.test(key)) owner = await request.store.findToken(hashToken(key));
        else if (providerTokens?.looksLikeJwt(key)) {
          const verdict = await providerTokens.verify(key);
          if ('problem' in verdict) request.accessTokenProblem = verdict.problem;
          else owner = { user: verdict.owner, tokenId: PROVIDER_TOKEN_ID };
        }
        if (owner === undefined) return false;
        request.user = owner.user;
        request.tokenId = owner.tokenId;
        return true;
      },
    });

    // Blocked addresses are refused before their token is even looked up, so guessing cannot go on.
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const wait = await failures.blockedFor(request.ip);
      if (wait > 0) {
        reply.header('retry-after', wait);
        writeLimit(reply, 0, wait);
        if (rateLimited.hasSubscribers) rateLimited.publish({ limit: 'auth-failures' });
        throw new TooManyAuthFailures(inSeconds(wait));
      }
      const error = await new Promise<(Error & { code?: string }) | undefined>((resolve) => app.verifyBearerAuth!(request, reply, resolve));
      if (error === undefined) return;
      // bearer-auth's own failures have FST_BEARER_AUTH_ codes; anything else is a store fault (which
      // has a code of its own too, e.g. ECONNREFUSED or SQLITE_BUSY) or an unreachable identity provider
      // (a 503): not a failed authentication.
      if (!error.code?.startsWith('FST_BEARER_AUTH_')) throw error;
      const sentToken = SENT_BEARER_TOKEN.test(request.headers.authorization ?? '');
      if (authFailures.hasSubscribers) authFailures.publish({ reason: sentToken ? 'invalid' : 'missing' });
      // A shared count is written before the answer, so the client's next try sees it on any instance.
      await failures.recordFailure(request.ip);
      const problem = request.accessTokenProblem;
      if (problem !== '') {
        reply.header('www-authenticate', `${CHALLENGE}, error="invalid_token", error_description="${problem}"`);
        throw new InvalidAccessToken();
      }
      reply.header('www-authenticate', sentToken ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE);
      throw sentToken ? new InvalidToken() : new MissingToken();
    });
  },
  { name: 'auth', dependencies: ['store', 'shared-limits'] },
);
