// Security headers: computed once from helmet, they are on every response, exactly as
// @fastify/helmet itself would set them.
import helmet from '@fastify/helmet';
import Fastify from 'fastify';
import t from 'tap';
import { helmetHeaders } from '../../src/plugins/security-headers.js';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';

t.test('the headers are the ones helmet sets, with the strict content security policy', async (t) => {
  const headers = await helmetHeaders();
  t.equal(headers['content-security-policy']?.startsWith("default-src 'self';"), true);
  t.match(headers['content-security-policy'], /object-src 'none';frame-ancestors 'none'/);
  t.equal(headers['x-content-type-options'], 'nosniff');
  t.equal(headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
  t.equal(headers['x-frame-options'], 'SAMEORIGIN');
  t.notOk('content-type' in headers || 'date' in headers || 'content-length' in headers, 'only helmet headers');

  // Default helmet, applied per request by @fastify/helmet, agrees on everything but the policy we chose.
  const reference = Fastify();
  await reference.register(helmet);
  reference.get('/', async () => 'ok');
  const perRequest = (await reference.inject('/')).headers;
  await reference.close();
  for (const [name, value] of Object.entries(headers)) {
    if (name !== 'content-security-policy') t.equal(value, perRequest[name], name);
  }
});

t.test('every kind of response carries them', async (t) => {
  const app = await buildTestApp(t);
  const headers = await helmetHeaders();
  const token = bearer(await tokenFor(app, 'alice'));
  const replies = [
    await inject(t, app, { url: '/plants?limit=20', headers: token }),
    await inject(t, app, { url: '/plants?limit=20', headers: token }),
    await inject(t, app, { url: '/plants' }),
    await inject(t, app, { method: 'DELETE', url: '/plants/1', headers: token }),
    await inject(t, app, { url: '/nowhere' }),
    await inject(t, app, { url: '/healthz' }),
    await inject(t, app, { url: '/docs/' }),
    await inject(t, app, { url: '/openapi.json' }),
  ];
  for (const reply of replies) {
    for (const [name, value] of Object.entries(headers)) t.equal(reply.headers[name], value, `${reply.status}: ${name}`);
  }
});

t.test('the content security policy is strict on API responses and on the docs page', async (t) => {
  const app = await buildTestApp(t);
  for (const url of ['/plants', '/docs/', '/openapi.json']) {
    const policy = String((await inject(t, app, { url })).headers['content-security-policy']);
    t.match(policy, /default-src 'self'/, url);
    t.match(policy, /script-src 'self'(;|$)/, `${url}: no inline or remote scripts`);
    t.match(policy, /frame-ancestors 'none'/, url);
    t.notMatch(policy, /https?:/, `${url}: no remote origins`);
  }
});
