// CORS for the browser origins of CORS_ORIGINS, matched exactly; with none configured the
// plugin registers nothing, so responses carry no CORS headers at all.
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const POLICY: FastifyCorsOptions = {
  methods: ['GET', 'POST', 'DELETE'],
  // Bearer tokens travel in Authorization, never in cookies: no credentials mode needed.
  allowedHeaders: ['Authorization', 'Content-Type'],
  // The next page, a created plant's id, when to retry, how much of the rate limit is left, why a token
  // failed, and what is deprecated (docs/api.md): a browser shows none of them to scripts unless exposed.
  exposedHeaders: [
    'Deprecation',
    'Link',
    'Location',
    'RateLimit',
    'RateLimit-Policy',
    'Retry-After',
    'Sunset',
    'WWW-Authenticate',
    'X-Request-Id',
  ],
  maxAge: 600,
};

export default fp(
  async function corsPolicy(app: FastifyInstance, options: { origins: string[] }) {
    if (options.origins.length === 0) return;
    const allowed = new Set(options.origins);
    await app.register(cors, {
      // Per request, so that anything which is not a CORS request from an allowed origin gets no
      // CORS headers and falls through to the app's own answers (405, 404: Error bodies), instead
      // of @fastify/cors's text/plain 400 for an OPTIONS that is not a preflight.
      delegator: (request: FastifyRequest, callback: (error: Error | null, options?: FastifyCorsOptions) => void) => {
        const origin = request.headers.origin;
        const notPreflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] === undefined;
        callback(null, origin !== undefined && allowed.has(origin) && !notPreflight ? { ...POLICY, origin } : { origin: false });
      },
    });
  },
  { name: 'cors' },
);
