// Security headers: written out as constants, and exactly what @fastify/helmet itself sets for
// each policy. The docs get helmet's full set; every other response, OWASP's set for API responses.
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify from 'fastify';
import t from 'tap';
import { API_SECURITY_HEADERS } from '../../src/http/headers.js';
import { DOCUMENT_SECURITY_HEADERS } from '../../src/plugins/docs-headers.js';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';

/** Helmet's headers that only steer how a browser runs a page. */
const DOCUMENT_ONLY = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

/** Helmet with a content security policy that allows only this origin's scripts and styles (Swagger UI sets inline styles). */
const DOCUMENT_POLICY: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      scriptSrc: ["'self'"],
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

/** Headers of any response, not set by helmet. */
const NOT_HELMET = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

/** The headers @fastify/helmet really sets on a response, registered with `policy` (its defaults without one). */
async function helmetSets(policy: FastifyHelmetOptions = {}): Promise<Record<string, string>> {
  const reference = Fastify();
  await reference.register(helmet, policy);
  reference.get('/', async () => 'ok');
  const response = await reference.inject('/');
  await reference.close();
  return Object.fromEntries(
    Object.entries(response.headers)
      .filter(([name]) => !NOT_HELMET.has(name))
      .map(([name, value]) => [name, String(value)]),
  );
}

t.test('the constants are exactly what helmet sets for each policy', async (t) => {
  t.same(DOCUMENT_SECURITY_HEADERS, await helmetSets(DOCUMENT_POLICY), 'the document set');
  const { 'cache-control': cacheControl, ...fromHelmet } = API_SECURITY_HEADERS;
  t.same(fromHelmet, await helmetSets(API_POLICY), 'the API set, apart from its own Cache-Control');
  t.equal(cacheControl, 'no-store');
});

t.test("the docs' headers are helmet's defaults with the strict content security policy", async (t) => {
  const headers = DOCUMENT_SECURITY_HEADERS;
  t.equal(headers['content-security-policy']?.startsWith("default-src 'self';"), true);
  t.match(headers['content-security-policy'], /object-src 'none';frame-ancestors 'none'/);
  t.equal(headers['x-content-type-options'], 'nosniff');
  t.equal(headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
  t.equal(headers['x-frame-options'], 'SAMEORIGIN');
  for (const name of DOCUMENT_ONLY) t.ok(headers[name], name);
  t.notOk('content-type' in headers || 'date' in headers || 'content-length' in headers, 'only helmet headers');

  // Default helmet, applied per request by @fastify/helmet, agrees on everything but the policy we chose.
  const perRequest = await helmetSets();
  t.same(Object.keys(headers).sort(), Object.keys(perRequest).sort(), 'the same headers');
  for (const [name, value] of Object.entries(headers)) {
    if (name !== 'content-security-policy') t.equal(value, perRequest[name], name);
  }
});

t.test("API responses get OWASP's REST set: no framing, no sniffing, no caching, HTTPS only", async (t) => {
  t.same(API_SECURITY_HEADERS, {
    'content-security-policy': "default-src 'none';frame-ancestors 'none'",
    'cross-origin-resource-policy': 'same-origin',
    'strict-transport-security': 'max-age=31536000; includeSubDomains',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
  });
});

t.test('every API response carries them, and no header meant for pages', async (t) => {
  const app = await buildTestApp(t);
  const headers = API_SECURITY_HEADERS;
  const token = bearer(await tokenFor(app, 'alice'));
  const replies = [
    await inject(t, app, { url: '/plants?limit=20', headers: token }),
    await inject(t, app, { url: '/plants?limit=20', headers: token }), // from the cache
    await inject(t, app, { method: 'POST', url: '/plants', headers: token, payload: { id: 1, name: 'fern' } }),
    await inject(t, app, { method: 'POST', url: '/plants', headers: { ...token, 'content-type': 'application/json' }, payload: '{' }),
    await inject(t, app, { url: '/plants' }),
    await inject(t, app, { method: 'DELETE', url: '/plants/2', headers: token }),
    await inject(t, app, { method: 'DELETE', url: '/plants/1', headers: token }),
    await inject(t, app, { url: '/nowhere' }),
    await inject(t, app, { url: '/healthz' }),
    await inject(t, app, { url: '/openapi.json' }),
    await inject(t, app, { url: '/docsx' }), // not under /docs
  ];
  t.same(
    replies.map((reply) => reply.status),
    [200, 200, 200, 400, 401, 404, 204, 404, 200, 200, 404],
  );
  for (const reply of replies) {
    for (const [name, value] of Object.entries(headers)) t.equal(reply.headers[name], value, `${reply.status}: ${name}`);
    for (const name of DOCUMENT_ONLY) t.notOk(name in reply.headers, `${reply.status}: no ${name}`);
  }
});

t.test('answers no route of ours makes carry the API set too: 405, CORS preflights, 500s, under /docs', async (t) => {
  const config = { corsOrigins: ['https://app.example.com'] };
  const app = await buildTestApp(t, config);
  const token = bearer(await tokenFor(app, 'alice'));
  const preflight = {
    origin: 'https://app.example.com',
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization',
  };
  const replies = [
    await inject(t, app, { method: 'PUT', url: '/plants', headers: token }),
    await inject(t, app, { method: 'OPTIONS', url: '/plants', headers: preflight }),
    await inject(t, app, { url: '/docs/nothing-here.json' }),
  ];
  t.same(
    replies.map((reply) => reply.status),
    [405, 204, 404],
  );
  await app.store.close(); // a fault: every read fails from here on
  replies.push(await inject(t, app, { url: '/plants', headers: token }));
  t.equal(replies.at(-1)!.status, 500);
  for (const reply of replies) {
    for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) t.equal(reply.headers[name], value, `${reply.status}: ${name}`);
  }
});

t.test('the docs page and its assets carry the document headers, not the API ones', async (t) => {
  const app = await buildTestApp(t);
  const headers = DOCUMENT_SECURITY_HEADERS;
  const page = await inject(t, app, { url: '/docs/' });
  const script = await inject(t, app, { url: '/docs/static/swagger-ui-bundle.js' });
  const bare = await inject(t, app, { url: '/docs' });
  t.equal(page.status, 200);
  t.equal(script.status, 200);
  for (const reply of [page, script, bare]) {
    for (const [name, value] of Object.entries(headers)) t.equal(reply.headers[name], value, `${reply.status}: ${name}`);
    t.not(reply.headers['cache-control'], 'no-store', 'the UI may be cached');
  }
});

t.test('the content security policy is strict on API responses and on the docs page', async (t) => {
  const app = await buildTestApp(t);
  t.equal((await inject(t, app, { url: '/plants' })).headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'");
  const policy = String((await inject(t, app, { url: '/docs/' })).headers['content-security-policy']);
  t.match(policy, /default-src 'self'/);
  t.match(policy, /script-src 'self'(;|$)/, 'no inline or remote scripts');
  t.match(policy, /frame-ancestors 'none'/);
  t.notMatch(policy, /https?:/, 'no remote origins');
});
