// Security headers: computed once from helmet, exactly as @fastify/helmet itself would set them.
// The docs get helmet's full set; every other response, OWASP's set for API responses.
import helmet from '@fastify/helmet';
import Fastify from 'fastify';
import t from 'tap';
import { apiHeaders, documentHeaders } from '../../src/plugins/security-headers.js';
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

t.test("the docs' headers are helmet's defaults with the strict content security policy", async (t) => {
  const headers = await documentHeaders();
  t.equal(headers['content-security-policy']?.startsWith("default-src 'self';"), true);
  t.match(headers['content-security-policy'], /object-src 'none';frame-ancestors 'none'/);
  t.equal(headers['x-content-type-options'], 'nosniff');
  t.equal(headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
  t.equal(headers['x-frame-options'], 'SAMEORIGIN');
  for (const name of DOCUMENT_ONLY) t.ok(headers[name], name);
  t.notOk('content-type' in headers || 'date' in headers || 'content-length' in headers, 'only helmet headers');

  // Default helmet, applied per request by @fastify/helmet, agrees on everything but the policy we chose.
  const reference = Fastify();
  await reference.register(helmet);
  reference.get('/', async () => 'ok');
  const perRequest = (await reference.inject('/')).headers;
  await reference.close();
  const notHelmet = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);
  t.same(Object.keys(headers).sort(), Object.keys(perRequest).filter((name) => !notHelmet.has(name)).sort(), 'the same headers');
  for (const [name, value] of Object.entries(headers)) {
    if (name !== 'content-security-policy') t.equal(value, perRequest[name], name);
  }
});

t.test("API responses get OWASP's REST set: no framing, no sniffing, no caching, HTTPS only", async (t) => {
  t.same(await apiHeaders(), {
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
  const headers = await apiHeaders();
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

t.test('the docs page and its assets carry the document headers, not the API ones', async (t) => {
  const app = await buildTestApp(t);
  const headers = await documentHeaders();
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
