// Bearer authentication for the scope it is registered in: hashed token lookup,
// RFC 6750 challenges, and a per-address limit on failures.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hashToken, hashTokenText, looksLikeToken } from '../auth/tokens.js';
import { FailureLimiter } from '../auth/failure-limiter.js';
import { InvalidToken, MissingToken, TooManyAuthFailures } from '../errors.js';
import type { ReadView } from '../store/plant-store.js';

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
const SCHEME = 'bearer ';

/**
 * The token of `Authorization: Bearer <token>` when it has the form of one of ours, else undefined.
 * The scheme name is case-insensitive (RFC 6749); spaces around the token are ignored.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || header.length <= SCHEME.length || header.slice(0, SCHEME.length).toLowerCase() !== SCHEME) return undefined;
  const token = header.slice(SCHEME.length).trim();
  return looksLikeToken(token) ? token : undefined;
}

type Done = (error?: Error) => void;

export default fp(
  async function auth(app: FastifyInstance, options: { authFailuresPerMinute: number }) {
    const failures = new FailureLimiter(options.authFailuresPerMinute);
    app.decorateRequest('user', '');
    app.decorateRequest('tokenId', 0);
    app.decorateRequest('readView', null);

    function refuse(request: FastifyRequest, reply: FastifyReply, done: Done) {
      failures.recordFailure(request.ip);
      const sentToken = SENT_BEARER_TOKEN.test(request.headers.authorization ?? '');
      request.log.info(sentToken ? 'unauthorized: the bearer token is not valid' : 'unauthorized: no bearer token');
      reply.header('www-authenticate', sentToken ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE);
      done(sentToken ? new InvalidToken() : new MissingToken());
    }

    // A plain callback hook with one promise for the lookup: this runs on every protected request.
    app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: Done) => {
      const wait = failures.blockedFor(request.ip);
      if (wait > 0) {
        reply.header('retry-after', wait);
        return done(new TooManyAuthFailures(wait));
      }
      const token = bearerToken(request.headers.authorization);
      if (token === undefined) return refuse(request, reply, done);
      // The token is the request's first read: through a view, its check for changes made
      // elsewhere also serves the request's later reads.
      const view = app.store.readView?.() ?? null;
      const found = view ? view.findTokenByHashText(hashTokenText(token)) : app.store.findToken(hashToken(token));
      found.then((owner) => {
        if (owner === undefined) return refuse(request, reply, done);
        request.user = owner.user;
        request.tokenId = owner.tokenId;
        request.readView = view;
        done();
      }, done); // a store fault: 500
    });
  },
  { name: 'auth', dependencies: ['store'] },
);
