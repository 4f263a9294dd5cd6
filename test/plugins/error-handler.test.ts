// Every non-2xx is the Error shape; a real database fault gives a 500 that reveals nothing.
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { bearer, buildTestApp, inject, testConfig, tokenFor } from '../helpers/app.js';
import { pipeline } from '../helpers/pipeline.js';
import { breakStore } from '../helpers/store-under-test.js';
import { buildApp } from '../../src/app.js';

t.test('unknown paths are 404 and wrong methods 405 with Allow, in the Error shape', async (t) => {
  const app = await buildTestApp(t);
  const notFound = await inject(t, app, { url: '/nothing-here' });
  t.equal(notFound.status, 404);
  t.match(notFound.json().message, /nothing at GET \/nothing-here/);
  const wrongMethod = await inject(t, app, { method: 'PUT', url: '/plants' });
  t.equal(wrongMethod.status, 405);
  t.equal(wrongMethod.headers.allow, 'GET, POST');
  const deleteList = await inject(t, app, { method: 'PATCH', url: '/plants/5' });
  t.equal(deleteList.status, 405);
  t.equal(deleteList.headers.allow, 'DELETE');
  t.equal((await inject(t, app, { method: 'HEAD', url: '/plants' })).status, 405, 'no undocumented HEAD routes');
  // Fastify refuses a QUERY without Content-Type (RFC 10008) before routing; no route here serves QUERY.
  const query = await inject(t, app, { method: 'QUERY', url: '/plants' });
  t.equal(query.status, 405, 'QUERY without Content-Type: 405, like any method the path does not serve');
  t.equal(query.headers.allow, 'GET, POST');
  t.equal((await inject(t, app, { method: 'QUERY', url: '/nothing-here' })).status, 404);
  t.equal((await inject(t, app, { url: '/plants/' })).status, 404);
  const docsFolder = await inject(t, app, { method: 'POST', url: '/docs/' });
  t.equal(docsFolder.status, 405, '/docs/ is served (GET, HEAD) as /docs is: another method is 405');
  t.equal(docsFolder.headers.allow, 'GET, HEAD');
  // The docs' file server's own refusals: the Error shape, a message that says what to do, and 416's Content-Range.
  const css = await inject(t, app, { url: '/docs/static/index.css' });
  const outside = await inject(t, app, { url: '/docs/static/index.css', headers: { range: 'bytes=100000-' } });
  t.equal(outside.status, 416);
  t.equal(outside.headers['content-range'], `bytes */${css.body.length}`);
  t.equal(outside.json().message, 'The range asked for is outside the file; Content-Range gives its length.');
  t.match((await inject(t, app, { url: '/docs/static/index.css', headers: { 'if-match': '"x"' } })).json(), {
    error: 412,
    message: /fetch it again/,
  });
  t.match((await inject(t, app, { url: '/docs/static/a%00b' })).json(), { error: 400, message: /not a file name/ });
  const missingFile = await inject(t, app, { url: '/docs/static/nothing.js' });
  t.equal(missingFile.status, 404, 'a missing file under a route of its method is 404, not 405');
  t.equal(missingFile.headers.allow, undefined);
  // Sent as it is (inject, like most clients, would resolve the dots): the docs' file server refuses it.
  await app.listen({ port: 0, host: '127.0.0.1' });
  const [climbing] = await pipeline((app.server.address() as AddressInfo).port, [
    'GET /docs/static/../../openapi.yaml HTTP/1.1\r\nHost: x\r\n\r\n',
  ]);
  t.equal(climbing!.status, 404, 'a path that climbs out of the docs folder is 404, as nothing is there');
  t.match(climbing!.body, /^\{"error":404,"message":"There is nothing at GET \/docs\/static\/\.\.\/\.\.\/openapi\.yaml/);
  const badUrl = await inject(t, app, { url: '/plants/%E0%A4%A' });
  t.equal(badUrl.status, 400);
});

t.test('a database fault answers 500 with no stack, SQL or path, and logs it with the request id', async (t) => {
  const config = await testConfig(t, { logLevel: 'info' });
  const logs: string[] = [];
  const app = await buildApp(config, { logStream: { write: (line) => logs.push(line) } });
  t.teardown(() => app.close());
  const token = await tokenFor(app, 'alice');

  // A real fault: another connection drops the table under the running service.
  const cause = await breakStore(config);

  const headers = { ...bearer(token), 'content-type': 'application/json' };
  const ids: string[] = [];
  for (const request of [
    { method: 'GET' as const, url: '/plants' },
    { method: 'POST' as const, url: '/plants', payload: '{"id":1,"name":"x"}' },
    { method: 'DELETE' as const, url: '/plants/1' },
  ]) {
    const reply = await inject(t, app, { ...request, headers });
    t.equal(reply.status, 500, `${request.method} ${request.url}`);
    const id = String(reply.headers['x-request-id']);
    ids.push(id);
    t.equal(
      reply.json().message,
      `Something went wrong on our side; it is logged as request ${id}. Please retry.`,
      'the message names the request id the answer carries',
    );
    t.notMatch(reply.body, /plants\.db|sqlite|postgres|relation|SELECT|INSERT|DELETE FROM|no such table|\bat\b.*\.ts/i);
  }
  const errorLines = logs.filter((line) => line.includes('"level":50'));
  t.equal(errorLines.length, 3, 'each 500 is logged');
  t.same(
    errorLines.map((line) => (JSON.parse(line) as { reqId: string }).reqId),
    ids,
    'each logged under that same id',
  );
  t.match(errorLines[0], cause, 'the log keeps the cause');
  t.ok(logs.length > 6, 'requests are logged');
  t.notMatch(logs.join(''), /pst_[A-Za-z0-9_-]{43}/, 'no token in the logs');

  const ready = await inject(t, app, { url: '/readyz' });
  t.equal(ready.status, 503);
  t.match(ready.json().message, /database is not reachable/);
});

t.test('a database fault while checking the token is a 500, not a 401, and not a failed authentication', async (t) => {
  const config = await testConfig(t, { authFailuresPerMinute: 2 });
  const app = await buildApp(config);
  t.teardown(() => app.close());
  const token = await tokenFor(app, 'alice');
  await breakStore(config, 'tokens');
  for (let i = 0; i < 4; i++) {
    const reply = await inject(t, app, { url: '/plants', headers: bearer(token) });
    t.equal(reply.status, 500, `attempt ${i + 1}: 500, never 429`);
    t.equal(reply.headers['www-authenticate'], undefined, 'no challenge: the token was not refused');
  }
});
