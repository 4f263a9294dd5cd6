// HEAD is answered wherever GET is on the open routes (health, the contract, the docs), as load
// balancers and link checkers expect: same status and headers as GET, no body.
import t from 'tap';
import { buildTestApp, fetchChecked } from '../helpers/app.js';
import { listen } from '../helpers/checked-fetch.js';

const OPEN = [
  '/healthz',
  '/readyz',
  '/openapi.json',
  '/openapi.yaml',
  '/docs',
  '/docs/',
  '/docs/static/swagger-initializer.js',
  '/docs/static/swagger-ui.css',
];
/** Headers that must be the same for HEAD as for GET (RFC 9110, 9.3.2). */
const SAME = [
  'content-type',
  'content-length',
  'content-security-policy',
  'x-content-type-options',
  'x-frame-options',
  'strict-transport-security',
  'cache-control',
  'location',
];

t.test('HEAD on every open GET: the same status and headers, no body', async (t) => {
  const app = await buildTestApp(t);
  const base = await listen(app);
  for (const path of OPEN) {
    const get = await fetchChecked(t, base, path, { redirect: 'manual' });
    const head = await fetchChecked(t, base, path, { method: 'HEAD', redirect: 'manual' });
    t.equal(head.status, get.status, `HEAD ${path} answers ${get.status} like GET`);
    t.equal(head.body, '', `HEAD ${path} has no body`);
    for (const name of SAME) t.equal(head.headers[name], get.headers[name], `HEAD ${path}: ${name}`);
  }
});

t.test('HEAD /readyz says 503 like GET when the database is gone', async (t) => {
  const app = await buildTestApp(t);
  const base = await listen(app);
  await app.store.close();
  const head = await fetchChecked(t, base, '/readyz', { method: 'HEAD' });
  t.equal(head.status, 503);
  t.equal(head.body, '');
});

t.test('HEAD stays refused on the plant operations, which openapi.yaml does not open to it', async (t) => {
  const app = await buildTestApp(t);
  const base = await listen(app);
  const head = await fetchChecked(t, base, '/plants', { method: 'HEAD' });
  t.equal(head.status, 405);
  t.equal(head.headers.allow, 'GET, POST');
  const wrong = await fetchChecked(t, base, '/healthz', { method: 'POST' });
  t.equal(wrong.status, 405);
  t.equal(wrong.headers.allow, 'GET, HEAD', 'Allow lists HEAD where it is answered');
});
