// Security headers on every response (helmet). The content security policy allows only this
// origin's scripts and styles, which is all the locally served Swagger UI needs.
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const POLICY: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      scriptSrc: ["'self'"],
      // Swagger UI sets inline styles on its elements.
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      frameAncestors: ["'none'"],
      formAction: ["'self'"],
    },
  },
};

/** Headers of any response, not set by helmet. */
const NOT_HELMET = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

/**
 * The headers helmet sets for this policy. They depend on nothing in the request, yet
 * @fastify/helmet rebuilds helmet's middleware (parsing the policy) on every request: a tenth
 * of the cost of a small GET. So helmet answers once, at start-up, and the result is reused.
 */
export async function helmetHeaders(): Promise<Record<string, string>> {
  const scratch = Fastify();
  await scratch.register(helmet, POLICY);
  scratch.get('/', async () => 'ok');
  const response = await scratch.inject('/');
  await scratch.close();
  return Object.fromEntries(Object.entries(response.headers).filter(([name]) => !NOT_HELMET.has(name)).map(([name, value]) => [name, String(value)]));
}

export default fp(
  async function securityHeaders(app: FastifyInstance) {
    const headers = await helmetHeaders();
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(headers);
      done();
    });
  },
  { name: 'security-headers' },
);
