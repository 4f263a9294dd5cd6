// Rate limits counted in a real redis-server (REDIS_URL): the keys they write, the Redis round trips
// a request costs, and what happens when Redis dies or hangs: requests still answered (fail open),
// one warning, a publication per failed call, a bounded delay, and the limits back when Redis is.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { createToken } from '../../src/auth/tokens.js';
import type { Config } from '../../src/config.js';
import { COMMAND_TIMEOUT_MS } from '../../src/limits/shared-counters.js';
import type { RateLimitStoreError } from '../../src/channels.js';
import { bearer, fetchChecked, testConfig, type Reply } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { skipReason, startRedis, type RedisServer } from '../helpers/redis-server.js';
import { eventually, until } from '../helpers/until.js';

const skip = skipReason();

interface Running {
  app: FastifyInstance;
  url: string;
  logs: Array<{ level: number; msg: string; err?: { message: string } }>;
  token: string;
}

/** The real app on a real port, logging into `logs`, with a token for alice. */
async function running(t: Test, overrides: Partial<Config>): Promise<Running> {
  const logs: Running['logs'] = [];
  const config = await testConfig(t, { logLevel: 'info', ...overrides });
  const app = await buildApp(config, { logStream: { write: (line) => void logs.push(JSON.parse(line)) } });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { token } = await createToken(app.store, 'alice');
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, logs, token };
}

/** A plain client of the same Redis, to look at what the service wrote. */
function inspector(t: Test, redis: RedisServer): Redis {
  const client = new Redis(redis.url, { lazyConnect: true });
  t.teardown(() => client.disconnect());
  return client;
}

/** Everything published on the channel during the test. */
function published(t: Test): RateLimitStoreError[] {
  const seen: RateLimitStoreError[] = [];
  const listener = (message: unknown) => void seen.push(message as RateLimitStoreError);
  subscribe('plant-store:rate-limit-store-error', listener);
  t.teardown(() => void unsubscribe('plant-store:rate-limit-store-error', listener));
  return seen;
}

/** Scripts Redis has run so far: each is one round trip of the service. */
async function scriptCalls(look: Redis): Promise<number> {
  const stats = await look.info('commandstats');
  const calls = (command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return calls('eval') + calls('evalsha');
}

/** Commands Redis has processed so far (the INFO asking included, and each command a script runs). */
const processed = async (look: Redis) => Number(/total_commands_processed:(\d+)/.exec(await look.info('stats'))?.[1]);

const warnings = (logs: Running['logs']) => logs.filter((line) => line.level === 40 && /Redis is unreachable/.test(line.msg));

async function timed(send: () => Promise<Reply>): Promise<{ reply: Reply; ms: number }> {
  const started = performance.now();
  const reply = await send();
  return { reply, ms: performance.now() - started };
}

// One line of skip where redis-server is missing: tests declared after a plan of 0 would each print a stack trace.
if (skip !== undefined) {
  t.plan(0, skip);
} else {
  t.test('the per-token limit counts in Redis, under the key prefix, with one round trip a request', async (t) => {
    const redis = await startRedis(t);
    const { url, token } = await running(t, { redisUrl: redis.url, redisKeyPrefix: 'shop-eu:', rateLimitPerMinute: 3 });
    const look = inspector(t, redis);
    const before = await scriptCalls(look);
    for (let i = 0; i < 3; i++) t.equal((await fetchChecked(t, url, '/plants', { headers: bearer(token) })).status, 200);
    t.equal(await scriptCalls(look), before + 3, 'one script call (one round trip) a request');
    const limited = await fetchChecked(t, url, '/plants', { headers: bearer(token) });
    t.equal(limited.status, 429);
    t.ok(
      Number(limited.headers['retry-after']) >= 1 && Number(limited.headers['retry-after']) <= 60,
      `Retry-After ${String(limited.headers['retry-after'])}`,
    );
    t.equal(limited.headers.ratelimit, `"per-token";r=0;t=${String(limited.headers['retry-after'])}`, "Redis's count, in RateLimit");
    t.same(await look.keys('*'), ['shop-eu:rl:token:1'], 'only prefixed keys');
    t.equal(await look.get('shop-eu:rl:token:1'), '4');
    const ttl = await look.pttl('shop-eu:rl:token:1');
    t.ok(ttl > 50_000 && ttl <= 60_000, `the window ends within a minute (${ttl} ms)`);
  });

  t.test('authenticated requests from addresses that never failed cost no Redis round trip', async (t) => {
    const redis = await startRedis(t);
    const { url, token } = await running(t, { redisUrl: redis.url, rateLimitPerMinute: 0, authFailuresPerMinute: 3 });
    const look = inspector(t, redis);
    const before = await processed(look);
    for (let i = 0; i < 5; i++) t.equal((await fetchChecked(t, url, '/plants', { headers: bearer(token) })).status, 200);
    t.equal(await processed(look), before + 1, 'Redis saw only the INFO that read the count before');

    // A failure is one round trip; after it, this address's requests read the shared count (one more each).
    const calls = await scriptCalls(look);
    t.equal((await fetchChecked(t, url, '/plants', { headers: bearer('pst_wrong') })).status, 401);
    t.equal(await scriptCalls(look), calls + 1, 'a failure: one script call');
    t.equal(await look.get('plant-store:rl:auth:127.0.0.1'), '1');
    t.equal((await fetchChecked(t, url, '/plants', { headers: bearer(token) })).status, 200);
    t.equal(await scriptCalls(look), calls + 2, 'a request from an address that failed: one read');

    // Failures another instance counted are seen here: the limit is the shared count.
    await look.set('plant-store:rl:auth:127.0.0.1', '3', 'PX', 30_000);
    const blocked = await fetchChecked(t, url, '/plants', { headers: bearer(token) });
    t.equal(blocked.status, 429, 'blocked by the shared count, even with a valid token');
    t.ok(
      Number(blocked.headers['retry-after']) >= 29 && Number(blocked.headers['retry-after']) <= 30,
      `Retry-After ${String(blocked.headers['retry-after'])} is Redis's window`,
    );
    const whileBlocked = await processed(look);
    t.equal((await fetchChecked(t, url, '/plants', { headers: bearer(token) })).status, 429);
    t.equal(await processed(look), whileBlocked + 1, 'a known block is answered without asking Redis again');
  });

  t.test(
    'Redis killed: requests are answered at once (fail open), one warning, a publication per failed call; the limits return with Redis',
    async (t) => {
      const redis = await startRedis(t);
      const seen = published(t);
      const { url, token, logs } = await running(t, { redisUrl: redis.url, rateLimitPerMinute: 5, authFailuresPerMinute: 3 });
      const get = (headers: Record<string, string>) => fetchChecked(t, url, '/plants', { headers });
      for (let i = 0; i < 2; i++) t.equal((await get(bearer(token))).status, 200);
      const up = [];
      for (let i = 0; i < 3; i++) up.push((await timed(() => get(bearer(token)))).ms);

      await redis.kill();
      const down: number[] = [];
      for (let i = 0; i < 20; i++) {
        const { reply, ms } = await timed(() => get(bearer(token)));
        t.equal(reply.status, 200, `request ${i + 1} with Redis down: answered, not limited (limit 5)`);
        t.equal(reply.headers.ratelimit, undefined, 'and its answer claims no count the instance does not know');
        down.push(ms);
      }
      const slowest = Math.max(...down);
      t.ok(
        // A request that waited on Redis would have waited for its command timeout.
        slowest > 0 && slowest < COMMAND_TIMEOUT_MS - 50,
        `with Redis down no request waits on it: slowest ${slowest.toFixed(1)} ms (with Redis up: ${up.map((ms) => ms.toFixed(1)).join(', ')} ms)`,
      );
      t.equal(seen.filter((message) => message.limit === 'token').length, 20, 'each request the limit let through was published');
      t.ok(
        seen.every((message) => message.error instanceof Error),
        'with the error',
      );

      // The failed-authentication limit falls back to this instance's own count meanwhile.
      for (let i = 0; i < 3; i++) t.equal((await get(bearer('pst_wrong'))).status, 401);
      t.equal((await get(bearer(token))).status, 429, 'guessing is still slowed while Redis is away');
      t.ok(seen.filter((message) => message.limit === 'auth-failures').length >= 3, 'failed auth-failure calls were published too');
      t.equal(warnings(logs).length, 1, 'one warning for the whole outage, not one a request');

      await redis.start();
      await until(() => logs.some((line) => /Redis answers again/.test(line.msg)), 5000, 'reconnection to Redis');
      t.equal((await get(bearer(token))).status, 429, 'the block counted meanwhile holds to the end of its window');
      t.equal(warnings(logs).length, 1);
    },
  );

  t.test('after Redis returns the per-token limit applies again', async (t) => {
    const redis = await startRedis(t);
    const { url, token, logs } = await running(t, { redisUrl: redis.url, rateLimitPerMinute: 4 });
    const get = () => fetchChecked(t, url, '/plants', { headers: bearer(token) });
    await redis.kill();
    for (let i = 0; i < 6; i++) t.equal((await get()).status, 200, 'fails open');
    await redis.start();
    await until(() => logs.some((line) => /Redis answers again/.test(line.msg)), 5000, 'reconnection to Redis');
    for (let i = 0; i < 4; i++) t.equal((await get()).status, 200);
    t.equal((await get()).status, 429, 'limited again');
  });

  t.test('Redis hung (no answers, connection open): one request waits the command timeout, the next ones do not', async (t) => {
    const redis = await startRedis(t);
    const seen = published(t);
    const { url, token, logs } = await running(t, { redisUrl: redis.url, rateLimitPerMinute: 100 });
    const get = () => fetchChecked(t, url, '/plants', { headers: bearer(token) });
    t.equal((await get()).status, 200);

    redis.pause();
    t.teardown(() => redis.resume());
    const first = await timed(get);
    t.equal(first.reply.status, 200, 'answered, not limited');
    t.ok(
      first.ms >= COMMAND_TIMEOUT_MS - 50 && first.ms < COMMAND_TIMEOUT_MS + 1000,
      `the first waited the command timeout: ${first.ms.toFixed(0)} ms`,
    );
    // Well within the pause that follows a failure: these are answered without trying Redis.
    const next: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { reply, ms } = await timed(get);
      t.equal(reply.status, 200);
      next.push(ms);
    }
    t.ok(
      Math.max(...next) < COMMAND_TIMEOUT_MS - 50,
      `none of the next ${next.length} waited on Redis: slowest ${Math.max(...next).toFixed(1)} ms`,
    );
    t.equal(seen.length, 1 + next.length, 'each one published');
    t.equal(warnings(logs).length, 1);

    redis.resume();
    // The pause after the failure ends within a second; the next request then finds Redis answering.
    await eventually(
      async () => (await get()).status === 200 && logs.some((line) => /Redis answers again/.test(line.msg)),
      5000,
      'Redis answering again',
    );
    t.equal(warnings(logs).length, 1, 'still one warning for the outage');
  });

  t.test('a Redis that refuses the password: the warning names the refusal, never the password', async (t) => {
    const redis = await startRedis(t);
    const look = inspector(t, redis);
    await look.config('SET', 'requirepass', 'the-right-one');
    const wrong = `redis://:not-the-password-${Date.now()}@${new URL(redis.url).host}`;
    const { url, token, logs } = await running(t, { redisUrl: wrong, rateLimitPerMinute: 2 });
    t.equal((await fetchChecked(t, url, '/plants', { headers: bearer(token) })).status, 200, 'fails open');
    await until(() => warnings(logs).length > 0, 5000, 'the warning');
    t.match(warnings(logs)[0]?.err?.message, /WRONGPASS|NOAUTH|invalid/i, 'the warning says why');
    t.notMatch(JSON.stringify(logs), /not-the-password/, 'no log line holds the password');
  });

  t.test('an unreachable Redis at start: the service starts, answers, and warns once', async (t) => {
    const nobody = await freePort();
    const started = Date.now();
    const { url, token, logs } = await running(t, { redisUrl: `redis://127.0.0.1:${nobody}`, rateLimitPerMinute: 2 });
    t.ok(Date.now() - started < 5000, `started in ${Date.now() - started} ms`);
    for (let i = 0; i < 4; i++) t.equal((await fetchChecked(t, url, '/plants', { headers: bearer(token) })).status, 200);
    t.equal(warnings(logs).length, 1);
    t.match(warnings(logs)[0]?.err?.message, /ECONNREFUSED/);
  });

  t.test('closing the app closes its Redis connection, and does not wait on a dead Redis', async (t) => {
    const redis = await startRedis(t);
    const look = inspector(t, redis);
    const clients = async () =>
      String(await look.client('LIST'))
        .split('\n')
        .filter((line: string) => / name=plant-store /.test(line)).length;

    const alive = await running(t, { redisUrl: redis.url });
    t.equal(await clients(), 1, 'the app holds one connection');
    let began = Date.now();
    await alive.app.close();
    t.ok(Date.now() - began < 1000, `closed in ${Date.now() - began} ms`);
    await eventually(async () => (await clients()) === 0, 2000, 'the connection closing');
    t.pass('and closes it with the app');
    t.equal(warnings(alive.logs).length, 0, 'a close is not an outage');

    const orphan = await running(t, { redisUrl: redis.url });
    await redis.kill();
    began = Date.now();
    await orphan.app.close();
    t.ok(Date.now() - began < 1000, `closed in ${Date.now() - began} ms with Redis dead`);
  });
}
