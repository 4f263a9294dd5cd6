// Bearer authentication for the scope it is registered in: hashed token lookup,
// RFC 6750 challenges, and a per-address limit on failures.
import bearerAuth from '@fastify/bearer-auth';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hashToken, hashTokenText, looksLikeToken } from '../auth/tokens.js';
import { FailureLimiter } from '../auth/failure-limiter.js';
import { InvalidToken, MissingToken, TooManyAuthFailures } from '../errors.js';
import type { ReadView, TokenOwner } from '../store/plant-store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The user whose token authenticated this request. */
    user: string;
    tokenId: number;
    /** This request's view of the store, when the store offers one; the token was read through it. */
    readView: ReadView | null;
  }
}

const CHALLENGE = 'Bearer realm="plant-store"';

/** A token was sent in the Bearer scheme, even if it is malformed. */
const SENT_BEARER_TOKEN = /^bearer[ \t]+\S/i;

/** Records whose token authenticated the request; false when the token is unknown or revoked. */
function identify(request: FastifyRequest, owner: TokenOwner | undefined, view: ReadView | null): boolean {
  if (owner === undefined) return false;
  request.user = owner.user;
  request.tokenId = owner.tokenId;
  request.readView = view;
  return true;
}

export default fp(
  async function auth(app: FastifyInstance, options: { authFailuresPerMinute: number }) {
    const failures = new FailureLimiter(options.authFailuresPerMinute);
    app.decorateRequest('user', '');
    app.decorateRequest('tokenId', 0);
    app.decorateRequest('readView', null);

    await app.register(bearerAuth, {
      keys: new Set<string>(), // unused: `auth` looks tokens up by hash
      addHook: false,
      specCompliance: 'rfc6749', // the scheme name is case-insensitive
      verifyErrorLogLevel: 'info' as const,
      // Not async: bearer-auth takes a boolean or a promise. A store with read views answers at
      // once, so the common case makes no promise of its own.
      auth(key: string, request: FastifyRequest): boolean | Promise<boolean> {
        if (!looksLikeToken(key)) return false;
        const view = app.store.readView?.();
        if (view === undefined) return app.store.findToken(hashToken(key)).then((owner) => identify(request, owner, null));
        // The token is the request's first read: through the view, its check for changes made
        // elsewhere also serves the request's later reads.
        return identify(request, view.findTokenByHashText(hashTokenText(key)), view);
      },
    });

    app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
      const wait = failures.blockedFor(request.ip);
      if (wait > 0) {
        reply.header('retry-after', wait);
        return done(new TooManyAuthFailures(wait));
      }
      app.verifyBearerAuth!(request, reply, (error?: Error & { code?: string }) => {
        if (error === undefined) return done();
        // bearer-auth's own failures have FST_BEARER_AUTH_ codes; anything else is a store fault (which
        // has a code of its own too, e.g. ECONNREFUSED or SQLITE_BUSY): a 500, not a failed authentication.
        if (!error.code?.startsWith('FST_BEARER_AUTH_')) return done(error);
        failures.recordFailure(request.ip);
        const sentToken = SENT_BEARER_TOKEN.test(request.headers.authorization ?? '');
        reply.header('www-authenticate', sentToken ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE);
        done(sentToken ? new InvalidToken() : new MissingToken());
      });
    });
  },
  { name: 'auth', dependencies: ['store'] },
);
