// CORS for the browser origins of CORS_ORIGINS, matched exactly; with none configured the
// plugin registers nothing, so responses carry no CORS headers at all.
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { CORS_POLICY, isCorsRequest } from '../cors-policy.js';

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
        const preflight = request.headers['access-control-request-method'];
        callback(null, isCorsRequest(allowed, origin, request.method, preflight) ? { ...CORS_POLICY, origin } : { origin: false });
      },
    });
  },
  { name: 'cors' },
);
