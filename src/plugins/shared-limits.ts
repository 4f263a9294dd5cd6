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
    const { SharedCounters } = await import('../limits/shared-counters.js');
    const counters = new SharedCounters(options.redisUrl, options.keyPrefix, app.log);
    app.decorate('sharedCounters', counters);
    await counters.connect();
    const { host, port } = counters.client.options;
    app.log.info({ redis: `${host}:${port}`, ready: counters.client.status === 'ready' }, 'rate limits are shared through Redis');
    app.addHook('onClose', async () => counters.close());
  },
  { name: 'shared-limits' },
);
