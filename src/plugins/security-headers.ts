// Security headers on every routed response (helmet), in two sets. The docs (Swagger UI under
// /docs) get helmet's full set, with a content security policy that allows only this origin's
// scripts and styles. Everything else is an answer to a program, and gets OWASP's REST Security
// Cheat Sheet set for APIs plus helmet's Cross-Origin-Resource-Policy: the headers that only
// steer how a browser runs a page (referrer, DNS prefetch, opener, XSS filter...) protect
// nothing there, and each header costs about 0.5 us per response.
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** Where Swagger UI is served (plugins/docs.ts). */
export const DOCS_PREFIX = '/docs';

const DOCUMENT_POLICY: FastifyHelmetOptions = {
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

/** Helmet kept to OWASP's API headers (strict policy, no framing, no sniffing, HSTS) and its same-origin resource policy. */
const API_POLICY: FastifyHelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  frameguard: { action: 'deny' },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
};

/** Answers are per user and change with every write: no cache, private or shared, keeps them. */
const API_EXTRA = { 'cache-control': 'no-store' };

/** Headers of any response, not set by helmet. */
const NOT_HELMET = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

/**
 * The headers helmet sets for a policy. They depend on nothing in the request, yet
 * @fastify/helmet rebuilds helmet's middleware (parsing the policy) on every request: a tenth
 * of the cost of a small GET. So helmet answers once, at start-up, and the result is reused.
 */
export async function helmetHeaders(policy: FastifyHelmetOptions): Promise<Record<string, string>> {
  const scratch = Fastify();
  await scratch.register(helmet, policy);
  scratch.get('/', async () => 'ok');
  const response = await scratch.inject('/');
  await scratch.close();
  return Object.fromEntries(Object.entries(response.headers).filter(([name]) => !NOT_HELMET.has(name)).map(([name, value]) => [name, String(value)]));
}

export const documentHeaders = () => helmetHeaders(DOCUMENT_POLICY);
export const apiHeaders = async () => ({ ...(await helmetHeaders(API_POLICY)), ...API_EXTRA });

/** Swagger UI's URLs: `/docs` itself and everything below it, not `/docsx`. */
const isDocs = (url: string) => url.startsWith(DOCS_PREFIX) && (url.length === DOCS_PREFIX.length || url[DOCS_PREFIX.length] === '/' || url[DOCS_PREFIX.length] === '?');

export default fp(
  async function securityHeaders(app: FastifyInstance) {
    const [forDocuments, forApi] = await Promise.all([documentHeaders(), apiHeaders()]);
    app.addHook('onRequest', (request, reply, done) => {
      reply.headers(isDocs(request.url) ? forDocuments : forApi);
      done();
    });
  },
  { name: 'security-headers' },
);
