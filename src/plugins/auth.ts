// Bearer authentication for the scope it is registered in: hashed token lookup through the
// request's store handle, RFC 6750 challenges, and a per-address limit on failures (per instance,
// or shared by all through Redis).
import bearerAuth from '@fastify/bearer-auth';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hashToken, looksLikeToken } from '../auth/tokens.js';
import { FailureLimiter } from '../auth/failure-limiter.js';
import { SharedFailureLimiter, type FailureLimit } from '../auth/shared-failure-limiter.js';
import { authFailures, rateLimited } from '../observability/channels.js';
import { InvalidToken, MissingToken, TooManyAuthFailures } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The user whose token authenticated this request. */
    user: string;
    tokenId: number;
  }
}

type HookDone = (error?: Error) => void;

const CHALLENGE = 'Bearer realm="plant-store"';

/** A token was sent in the Bearer scheme, even if it is malformed. */
const SENT_BEARER_TOKEN = /^bearer[ \t]+\S/i;

export default fp(
  async function auth(app: FastifyInstance, options: { authFailuresPerMinute: number }) {
    // With REDIS_URL the count is shared by every instance (plugins/shared-limits.ts).
    const failures: FailureLimit = app.limitWindows
      ? new SharedFailureLimiter(options.authFailuresPerMinute, app.limitWindows)
      : new FailureLimiter(options.authFailuresPerMinute);
    app.decorateRequest('user', '');
    app.decorateRequest('tokenId', 0);

    await app.register(bearerAuth, {
      keys: new Set<string>(), // unused: `auth` looks tokens up by hash
      addHook: false,
      specCompliance: 'rfc6749', // the scheme name is case-insensitive
      verifyErrorLogLevel: 'info' as const,
      // Unknown and revoked tokens resolve false; a store fault rejects, and is answered as one (below).
      async auth(key: string, request: FastifyRequest): Promise<boolean> {
        if (!looksLikeToken(key)) return false;
        const owner = await request.store.findToken(hashToken(key));
        if (owner === undefined) return false;
        request.user = owner.user;
        request.tokenId = owner.tokenId;
        return true;
      },
    });

    // Blocked addresses are refused before their token is even looked up, so guessing cannot go on.
    const refuseOrAuthenticate = (request: FastifyRequest, reply: FastifyReply, done: HookDone, wait: number) => {
      if (wait > 0) {
        reply.header('retry-after', wait);
        if (rateLimited.hasSubscribers) rateLimited.publish({ limit: 'auth-failures' });
        done(new TooManyAuthFailures(wait));
        return;
      }
      app.verifyBearerAuth!(request, reply, (error?: Error & { code?: string }) => {
        if (error === undefined) return done();
        // bearer-auth's own failures have FST_BEARER_AUTH_ codes; anything else is a store fault (which
        // has a code of its own too, e.g. ECONNREFUSED or SQLITE_BUSY): a 500, not a failed authentication.
        if (!error.code?.startsWith('FST_BEARER_AUTH_')) return done(error);
        const sentToken = SENT_BEARER_TOKEN.test(request.headers.authorization ?? '');
        if (authFailures.hasSubscribers) authFailures.publish({ reason: sentToken ? 'invalid' : 'missing' });
        reply.header('www-authenticate', sentToken ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE);
        const refuse = () => done(sentToken ? new InvalidToken() : new MissingToken());
        // A shared count is written before the answer, so the client's next try sees it on any instance.
        const recorded = failures.recordFailure(request.ip);
        if (recorded === undefined) refuse();
        else void recorded.then(refuse);
      });
    };

    app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
      const wait = failures.blockedFor(request.ip);
      // Only a shared count ever answers with a promise (never rejected): the in-memory path allocates none.
      if (typeof wait === 'number') refuseOrAuthenticate(request, reply, done, wait);
      else void wait.then((seconds) => refuseOrAuthenticate(request, reply, done, seconds));
    });
  },
  { name: 'auth', dependencies: ['store', 'shared-limits'] },
);
