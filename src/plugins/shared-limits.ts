// With REDIS_URL, the rate limits count in Redis, shared by every instance (app.sharedCounters);
// without it, app.sharedCounters is undefined and each instance counts in its own memory.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { SharedCounters } from '../limits/shared-counters.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The shared counters of the rate limits, when REDIS_URL is set. */
    sharedCounters: SharedCounters | undefined;
  }
}

export default fp(
  async function sharedLimits(app: FastifyInstance, options: { redisUrl: string | undefined; keyPrefix: string }) {
    if (options.redisUrl === undefined) return void app.decorate('sharedCounters', undefined);
    // Imported only when used: ioredis alone adds about 25 MB to a process.
    const [{ connectOrCarryOn, redisClient }, { SharedCounters }, { StoreOutage }] = await Promise.all([
      import('../limits/redis-connection.js'),
      import('../limits/shared-counters.js'),
      import('../limits/store-outage.js'),
    ]);
    const outage = new StoreOutage(app.log);
    const client = redisClient(options.redisUrl, outage);
    app.decorate('sharedCounters', new SharedCounters(client, options.keyPrefix, outage));
    await connectOrCarryOn(client);
    app.log.info(
      { redis: `${client.options.host}:${client.options.port}`, ready: client.status === 'ready' },
      'rate limits are shared through Redis',
    );
    // Not QUIT: with requests all answered there is nothing to wait for, and a dead Redis would make it wait.
    app.addHook('onClose', async () => {
      outage.closing();
      client.disconnect();
    });
  },
  { name: 'shared-limits' },
);
