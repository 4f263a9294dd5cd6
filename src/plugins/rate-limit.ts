// Per-token request limit for the scope it is registered in (after auth, which names the token),
// counted in this instance's memory or, with REDIS_URL, in Redis for every instance.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { inSeconds, TooManyRequests } from '../errors.js';
import { rateLimited } from '../channels.js';
import { PROVIDER_TOKEN_ID } from './auth.js';

export default fp(
  async function tokenRateLimit(app: FastifyInstance, options: { perMinute: number }) {
    if (options.perMinute === 0) return;
    await app.register(rateLimit, {
      max: options.perMinute,
      timeWindow: 60_000,
      hook: 'onRequest',
      // Token ids are per database, and every instance of one service shares its database: with
      // Redis (REDIS_URL) the count is fleet-wide. A failing Redis lets requests through (fails open).
      // A provider user's access tokens change as they sign in again: their limit follows the user.
      keyGenerator: (request) => (request.tokenId === PROVIDER_TOKEN_ID ? `rl:user:${request.user}` : `rl:token:${request.tokenId}`),
      ...(app.sharedCounters && { store: app.sharedCounters.tokenStore(), skipOnError: true }),
      errorResponseBuilder: (_request, context) => {
        if (rateLimited.hasSubscribers) rateLimited.publish({ limit: 'token' });
        return new TooManyRequests(inSeconds(Math.ceil(context.ttl / 1000)));
      },
    });
  },
  { name: 'token-rate-limit', dependencies: ['auth', 'shared-limits'] },
);
