// Decorates the app with its store and closes the store when the app closes.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Store } from '../store/plant-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
  }
}

export default fp(
  async function storePlugin(app: FastifyInstance, options: { store: Store }) {
    app.decorate('store', options.store);
    app.addHook('onClose', async () => options.store.close());
  },
  { name: 'store' },
);
