// The app's logger is pino's own, through Fastify: request lines carry the reqId, the level holds
// for every request as it is now (not as it was at start-up), and tokens are never written.
import Fastify from 'fastify';
import t from 'tap';
import { loggerOptions, redactUrl } from '../../src/logging/logger.js';

async function appLogging(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const app = Fastify({ logger: loggerOptions(level, { write: (line: string) => lines.push(JSON.parse(line)) }) });
  app.get('/quiet', async () => 'ok');
  app.get('/loud', async (request) => {
    request.log.warn({ detail: 1 }, 'something to see');
    request.log.child({ step: 'inner' }).error('from a child');
    request.log.debug('below the level');
    return 'ok';
  });
  await app.ready();
  return { app, lines };
}

t.test('at warn, a request that logs nothing writes nothing; one that logs writes with its reqId', async (t) => {
  const { app, lines } = await appLogging('warn');
  await app.inject('/quiet');
  t.same(lines, []);
  await app.inject('/loud');
  t.equal(lines.length, 2);
  t.match(lines[0], { level: 40, msg: 'something to see', detail: 1, reqId: 'req-2' });
  t.match(lines[1], { level: 50, msg: 'from a child', step: 'inner', reqId: 'req-2' });
  await app.close();
});

t.test('at info, the request lines of Fastify carry the reqId as before', async (t) => {
  const { app, lines } = await appLogging('info');
  await app.inject('/quiet');
  t.same(
    lines.map((line) => [line.msg, line.reqId]),
    [
      ['incoming request', 'req-1'],
      ['request completed', 'req-1'],
    ],
  );
  await app.close();
});

t.test('the level reads through and can be changed per request', async (t) => {
  const app = Fastify({ logger: loggerOptions('warn') });
  let seen = '';
  app.get('/', async (request) => {
    seen = request.log.level;
    request.log.level = 'error';
    return request.log.level;
  });
  t.equal((await app.inject('/')).body, 'error');
  t.equal(seen, 'warn');
  t.equal(app.log.level, 'warn', "a request's level is its own");
  await app.close();
});

t.test("a level changed while running holds from the next request on, Fastify's request lines included", async (t) => {
  const { app, lines } = await appLogging('warn');
  await app.inject('/quiet');
  t.same(lines, []);
  app.log.level = 'info';
  await app.inject('/quiet');
  t.same(
    lines.map((line) => line.msg),
    ['incoming request', 'request completed'],
  );
  await app.close();
});

t.test('tokens are never written: not from the query string, not from the Authorization header', async (t) => {
  const { app, lines } = await appLogging('info');
  const token = `pst_${'A'.repeat(43)}`;
  await app.inject({ url: `/quiet?access_token=${token}&x=1`, headers: { authorization: `Bearer ${token}` } });
  t.match(lines[0], { msg: 'incoming request', req: { method: 'GET', url: '/quiet?[redacted]&[redacted]' } });
  t.notMatch(JSON.stringify(lines), /pst_A/);
  await app.close();
});

t.test('a logged URL keeps limit and cursor, and no token in any spelling', async (t) => {
  const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl';
  const cases: Array<[string, string]> = [
    ['/plants?limit=20&cursor=djE6MTA', '/plants?limit=20&cursor=djE6MTA'],
    [`/plants?access_token=${jwt}`, '/plants?[redacted]'],
    [`/plants?limit=5&access_token=pst%5F${'B'.repeat(43)}`, '/plants?limit=5&[redacted]'],
    [`/plants?pst_${'C'.repeat(43)}`, '/plants?[redacted]'],
    [`/plants?cursor=pst%5f${'D'.repeat(43)}`, '/plants?cursor=pst_[redacted]'],
    [`/plants/pst_${'E'.repeat(43)}`, '/plants/pst_[redacted]'],
    ['/healthz', '/healthz'],
  ];
  for (const [url, logged] of cases) t.equal(redactUrl(url), logged, url);
});

t.test('silent is no logger at all', async (t) => {
  t.equal(loggerOptions('silent'), false);
});
