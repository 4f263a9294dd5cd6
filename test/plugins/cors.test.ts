// CORS: off by default (no CORS headers at all); with CORS_ORIGINS, exact origins only, a
// preflight that allows Authorization and Content-Type, and Link, Location, RateLimit, RateLimit-Policy,
// Retry-After, WWW-Authenticate and X-Request-Id exposed to scripts. Everything else keeps the app's own answers.
import t, { type Test } from 'tap';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';

const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.com';

const corsHeaders = (headers: Record<string, unknown>) => Object.keys(headers).filter((name) => name.startsWith('access-control-'));

async function setup(t: Test, corsOrigins: string[]) {
  const app = await buildTestApp(t, { corsOrigins });
  const alice = bearer(await tokenFor(app, 'alice'));
  return { app, alice };
}

t.test('no CORS_ORIGINS: no CORS headers, and OPTIONS is just a method the paths do not allow', async (t) => {
  const { app, alice } = await setup(t, []);
  const get = await inject(t, app, { url: '/plants', headers: { ...alice, origin: APP } });
  t.equal(get.status, 200);
  t.same(corsHeaders(get.headers), []);
  t.equal(get.headers.vary, 'Accept', 'the body varies with Accept only: without CORS, Origin changes nothing');
  const preflight = await inject(t, app, {
    method: 'OPTIONS',
    url: '/plants',
    headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  });
  t.equal(preflight.status, 405);
  t.equal(preflight.headers.allow, 'GET, POST');
  t.same(corsHeaders(preflight.headers), []);
});

t.test('an allowed origin gets its origin back and the exposed headers, on success and on failure', async (t) => {
  const { app, alice } = await setup(t, ['http://localhost:5173', APP]);
  for (let id = 1; id <= 3; id++) {
    const payload = JSON.stringify({ id, name: `p${id}` });
    const created = await inject(t, app, {
      method: 'POST',
      url: '/plants',
      headers: { ...alice, origin: APP, 'content-type': 'application/json' },
      payload,
    });
    t.equal(created.headers.location, `/plants/${id}`);
    t.match(created.headers['access-control-expose-headers'], /\bLocation\b/, 'a page can read the id of what it created');
  }
  const page = await inject(t, app, { url: '/plants?limit=2', headers: { ...alice, origin: APP } });
  t.equal(page.status, 200);
  t.equal(page.headers['access-control-allow-origin'], APP);
  t.equal(
    page.headers['access-control-expose-headers'],
    'Deprecation, Link, Location, RateLimit, RateLimit-Policy, Retry-After, Sunset, WWW-Authenticate, X-Request-Id',
    "a page's client can hear that what it calls is deprecated, and how much of its rate limit is left",
  );
  t.match(page.headers.ratelimit, /^"per-token";r=\d+;t=\d+$/, 'a page can read how much of its rate limit is left');
  t.match(page.headers.link, /rel="next"/);
  t.equal(page.headers.vary, 'Origin, Accept', 'caches keep answers for different origins and representations apart');
  t.equal(page.headers['access-control-allow-credentials'], undefined, 'bearer tokens, no cookies');

  const denied = await inject(t, app, { url: '/plants', headers: { origin: APP } });
  t.equal(denied.status, 401);
  t.equal(denied.headers['access-control-allow-origin'], APP, 'a page can read why it failed');
  t.match(denied.headers['www-authenticate'], /^Bearer/);
});

t.test('an origin not in the list gets no CORS headers; the request itself is unchanged', async (t) => {
  const { app, alice } = await setup(t, [APP]);
  for (const origin of [OTHER, `${APP}:443`, 'null', APP.toUpperCase()]) {
    const get = await inject(t, app, { url: '/plants', headers: { ...alice, origin } });
    t.equal(get.status, 200, origin);
    t.same(corsHeaders(get.headers), [], origin);
  }
  const preflight = await inject(t, app, {
    method: 'OPTIONS',
    url: '/plants',
    headers: { origin: OTHER, 'access-control-request-method': 'POST' },
  });
  t.equal(preflight.status, 405, 'a failed preflight: the browser stops there');
  t.same(corsHeaders(preflight.headers), []);
});

t.test('preflight from an allowed origin: 204, methods, Authorization and Content-Type, cached 10 minutes', async (t) => {
  const { app } = await setup(t, [APP]);
  for (const [url, method] of [
    ['/plants', 'POST'],
    ['/plants', 'GET'],
    ['/plants/9223372036854775807', 'DELETE'],
  ] as const) {
    const preflight = await inject(t, app, {
      method: 'OPTIONS',
      url,
      headers: { origin: APP, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
    });
    t.equal(preflight.status, 204, `${method} ${url}`);
    t.equal(preflight.body, '');
    t.equal(preflight.headers['access-control-allow-origin'], APP);
    t.equal(preflight.headers['access-control-allow-methods'], 'GET, POST, DELETE');
    t.equal(preflight.headers['access-control-allow-headers'], 'Authorization, Content-Type');
    t.equal(preflight.headers['access-control-max-age'], '600');
  }
});

t.test('with CORS on, other answers stay as they were: OPTIONS that is no preflight, 404, 405', async (t) => {
  const { app } = await setup(t, [APP]);
  const plainOptions = await inject(t, app, { method: 'OPTIONS', url: '/plants', headers: { origin: APP } });
  t.equal(plainOptions.status, 405, 'an OPTIONS without Access-Control-Request-Method is not a preflight');
  t.equal(plainOptions.headers.allow, 'GET, POST');
  const unknown = await inject(t, app, { url: '/nothing-here', headers: { origin: APP } });
  t.equal(unknown.status, 404, 'the preflight route does not make every path exist');
  const wrongMethod = await inject(t, app, { method: 'PUT', url: '/plants', headers: { origin: APP } });
  t.equal(wrongMethod.status, 405);
  t.equal(wrongMethod.headers.allow, 'GET, POST', 'OPTIONS is not advertised as an operation');
  const health = await inject(t, app, { url: '/healthz', headers: { origin: APP } });
  t.equal(health.headers['access-control-allow-origin'], APP, 'open operations are readable too');
});
