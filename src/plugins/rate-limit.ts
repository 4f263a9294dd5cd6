// Per-token request limit for the scope it is registered in (after auth, which names the token),
// counted in this instance's memory or, with REDIS_URL, in Redis for every instance. Every answer it
// counts carries RateLimit-Policy and RateLimit (limits/ratelimit-fields.ts); a refusal also Retry-After.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { inSeconds, retryLater, TooManyRequests } from '../errors.js';
import { limitFields } from '../limits/ratelimit-fields.js';
import { rateLimited } from '../channels.js';
import { PROVIDER_TOKEN_ID } from './auth.js';

const WINDOW_MS = 60_000;

export default fp(
  async function tokenRateLimit(app: FastifyInstance, options: { perMinute: number }) {
    if (options.perMinute === 0) return;
    // The plugin writes only x-ratelimit-* fields or an older draft's, so its own hook is off (`global: false`) and
    // this scope's one hook asks it for the count (createRateLimit) and writes the current draft's fields.
    await app.register(rateLimit, {
      global: false,
      max: options.perMinute,
      timeWindow: WINDOW_MS,
      // Token ids are per database, and every instance of one service shares its database: with
      // Redis (REDIS_URL) the count is fleet-wide. A failing Redis lets requests through (fails open).
      // A provider user's access tokens change as they sign in again: their limit follows the user.
      keyGenerator: (request) => (request.tokenId === PROVIDER_TOKEN_ID ? `rl:user:${request.user}` : `rl:token:${request.tokenId}`),
      ...(app.sharedCounters && { store: app.sharedCounters.tokenStore() }),
    });
    const count = app.createRateLimit();
    const writeLimit = limitFields('per-token', options.perMinute, WINDOW_MS / 1000);
    app.addHook('onRequest', async (request, reply) => {
      let limit;
      try {
        limit = await count(request);
      } catch {
        // The shared store failed (shared-counters.ts has reported it): the request goes through, and
        // its answer claims no count it does not know.
        return;
      }
      if (limit.isAllowed) return;
      writeLimit(reply, limit.remaining, limit.ttlInSeconds);
      if (!limit.isExceeded) return;
      if (rateLimited.hasSubscribers) rateLimited.publish({ limit: 'token' });
      throw retryLater(new TooManyRequests(inSeconds(limit.ttlInSeconds)), limit.ttlInSeconds);
    });
  },
  { name: 'token-rate-limit', dependencies: ['auth', 'shared-limits'] },
);
