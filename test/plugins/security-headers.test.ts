// Security headers on API responses and on the docs page.
import t from 'tap';
import { buildTestApp, inject } from '../helpers/app.js';

t.test('responses carry helmet headers and a strict content security policy', async (t) => {
  const app = await buildTestApp(t);
  for (const url of ['/plants', '/docs/', '/openapi.json']) {
    const reply = await inject(t, app, { url });
    t.equal(reply.headers['x-content-type-options'], 'nosniff', url);
    t.equal(reply.headers['x-frame-options'], 'SAMEORIGIN', url);
    t.match(reply.headers['strict-transport-security'], /max-age=/, url);
    const policy = String(reply.headers['content-security-policy']);
    t.match(policy, /default-src 'self'/, url);
    t.match(policy, /script-src 'self'(;|$)/, `${url}: no inline or remote scripts`);
    t.match(policy, /frame-ancestors 'none'/, url);
    t.notMatch(policy, /https?:/, `${url}: no remote origins`);
  }
});
