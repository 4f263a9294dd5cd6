// Request loggers made on first use write exactly what pino's children write, reqId included.
import Fastify from 'fastify';
import t from 'tap';
import { lazyChildLogger } from '../../src/logging/lazy-child-logger.js';

async function appLogging(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const app = Fastify({ logger: { level, stream: { write: (line: string) => lines.push(JSON.parse(line)) } }, childLoggerFactory: lazyChildLogger });
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
  t.same(lines.map((line) => [line.msg, line.reqId]), [['incoming request', 'req-1'], ['request completed', 'req-1']]);
  await app.close();
});

t.test('the level reads through and can be changed per request', async (t) => {
  const app = Fastify({ logger: { level: 'warn' }, childLoggerFactory: lazyChildLogger });
  let seen = '';
  app.get('/', async (request) => {
    seen = request.log.level;
    request.log.level = 'error';
    return request.log.level;
  });
  t.equal((await app.inject('/')).body, 'error');
  t.equal(seen, 'warn');
  await app.close();
});
